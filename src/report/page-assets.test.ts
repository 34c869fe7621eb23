import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiledScript, type PageStyle, pageScript, pageStyle } from './page-assets.js';

/** A module file in a fresh folder, as a URL. */
function moduleFile(name: string, text: string): URL {
  const path = join(mkdtempSync(join(tmpdir(), 'lockchaos-page-script-')), name);
  writeFileSync(path, text);
  return pathToFileURL(path);
}

describe('page assets', () => {
  it('reads every style sheet a page inlines', () => {
    const names: PageStyle[] = ['report', 'measurement', 'uplot-fonts', 'shrink', 'campaign-summary'];
    for (const name of names) {
      const css = pageStyle(name);
      expect(css.length, name).toBeGreaterThan(50);
      expect(css).not.toMatch(/<\/style/i);
    }
    expect(pageStyle('report')).toContain('#timeline');
  });

  it("inlines a page script's bundle and calls its entry with the page's JSON", () => {
    // From the sources there is no .js beside report-page.ts: it is bundled from the .ts.
    const { html: script, hash } = pageScript(
      new URL('./browser/report-page.js', import.meta.url),
      'reportPage',
      'report-data',
    );
    expect(script).toMatch(/^<script type="module">"use strict";\nvar lockchaosPage = \(\(\) => \{\n/);
    expect(script).toMatch(/^ {4}reportPage: \(\) => reportPage$/m);
    expect(script).not.toMatch(/^\s*(import|export) /m); // one IIFE: its modules' imports are resolved
    expect(script).not.toMatch(/: ReportPageData|declare const/); // and their types gone
    expect(script).toMatch(
      /\nlockchaosPage\.reportPage\(JSON\.parse\(document\.getElementById\("report-data"\)\.textContent\)\);\n<\/script>$/,
    );
    // It parses as a module.
    const body = script.slice('<script type="module">'.length, -'</script>'.length);
    // The page's policy allows it by the hash of exactly that text.
    expect(hash).toBe(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    const file = join(mkdtempSync(join(tmpdir(), 'lockchaos-page-script-')), 'page.mjs');
    writeFileSync(file, body);
    expect(() => execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' })).not.toThrow();
  });

  it('reads the bundle the build wrote beside a compiled entry, once', () => {
    const bundle =
      'var lockchaosPage = (() => {\n  var x = {};\n  __export(x, {\n    plots: () => plots\n  });\n})();\n';
    const url = moduleFile('plots.js', 'export function plots() {}\n');
    writeFileSync(fileURLToPath(url).replace(/\.js$/, '.bundle.js'), bundle);
    expect(compiledScript(url)).toBe(bundle.trimEnd());
    expect(pageScript(url, 'plots').html).toBe(
      `<script type="module">${bundle.trimEnd()}\nlockchaosPage.plots();\n</script>`,
    );
  });

  it('refuses a missing or out-of-date bundle, an entry it does not export, or a closing <script>', () => {
    const unbuilt = moduleFile('a.js', 'export function main() {}\n');
    expect(() => compiledScript(unbuilt)).toThrow(/a\.bundle\.js is missing: build with npm run build/);
    const stale = moduleFile('b.js', 'export function main() {}\n');
    const staleBundle = fileURLToPath(stale).replace(/\.js$/, '.bundle.js');
    writeFileSync(staleBundle, '  main: () => main\n');
    utimesSync(staleBundle, new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(() => compiledScript(stale)).toThrow(/is older than .*b\.js: build with npm run build/);
    const plain = moduleFile('c.js', '');
    writeFileSync(fileURLToPath(plain).replace(/\.js$/, '.bundle.js'), '  main: () => main\n');
    expect(() => pageScript(plain, 'other')).toThrow(/exports no function other/);
    const closes = moduleFile('d.js', '');
    writeFileSync(fileURLToPath(closes).replace(/\.js$/, '.bundle.js'), "  main: () => main\n'</script>'\n");
    expect(() => pageScript(closes, 'main')).toThrow(/closing tag/);
  });
});
