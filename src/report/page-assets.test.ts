import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleStamp, stampFileOf } from './bundle-stamp.js';
import { compiledScript, type PageStyle, pageScript, pageStyle } from './page-assets.js';
import { bundleFileOf } from './page-bundle.js';

/**
 * The bundle `text` of the compiled entry `url` written beside it with its stamp, as the
 * build writes them, bundled from the entry and `modules`; the bundle's path.
 */
function stampedBundle(url: URL, text: string, modules: string[] = []): string {
  const entry = fileURLToPath(url);
  const bundle = bundleFileOf(entry);
  writeFileSync(bundle, text);
  writeFileSync(stampFileOf(bundle), JSON.stringify(bundleStamp(bundle, text, [entry, ...modules])));
  return bundle;
}

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
    stampedBundle(url, bundle);
    expect(compiledScript(url)).toBe(bundle.trimEnd());
    expect(pageScript(url, 'plots').html).toBe(
      `<script type="module">${bundle.trimEnd()}\nlockchaosPage.plots();\n</script>`,
    );
  });

  it('reads a bundle whose modules were written after it, as npm install writes them', () => {
    // npm writes a package's files in tarball order, each with the time of writing: the
    // compiled entry and its modules are newer than the bundle, yet the same files.
    const url = moduleFile('late.js', 'import { x } from "./late/x.js";\nexport function main() { x(); }\n');
    const entry = fileURLToPath(url);
    const module = join(dirname(entry), 'late', 'x.js');
    mkdirSync(dirname(module));
    writeFileSync(module, 'export const x = () => 1;\n');
    const bundle = stampedBundle(url, '  main: () => main\n', [module]);
    utimesSync(bundle, new Date(2000, 0, 1), new Date(2000, 0, 1));
    utimesSync(stampFileOf(bundle), new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(pageScript(url, 'main').html).toContain('lockchaosPage.main();');
  });

  it('refuses a bundle made from other modules than those beside it, or with no stamp, or altered', () => {
    const unbuilt = moduleFile('a.js', 'export function main() {}\n');
    expect(() => compiledScript(unbuilt)).toThrow(/a\.bundle\.js is missing: build with npm run build/);
    // tsc ran again without the bundling step: the entry, or a module it imports, changed.
    const stale = moduleFile('b.js', 'export function main() {}\n');
    stampedBundle(stale, '  main: () => main\n');
    writeFileSync(fileURLToPath(stale), 'export function main() { return 2; }\n');
    expect(() => compiledScript(stale)).toThrow(
      /b\.bundle\.js was bundled from another .*b\.js: build with npm run build/,
    );
    const imported = moduleFile('i.js', 'export function main() {}\n');
    const module = join(dirname(fileURLToPath(imported)), 'm.js');
    writeFileSync(module, 'export const m = 1;\n');
    stampedBundle(imported, '  main: () => main\n', [module]);
    writeFileSync(module, 'export const m = 2;\n');
    expect(() => compiledScript(imported)).toThrow(/i\.bundle\.js was bundled from another .*m\.js/);
    rmSync(module);
    expect(() => compiledScript(imported)).toThrow(/i\.bundle\.js was bundled from .*m\.js, which is missing/);
    const unstamped = moduleFile('e.js', 'export function main() {}\n');
    writeFileSync(fileURLToPath(unstamped).replace(/\.js$/, '.bundle.js'), '  main: () => main\n');
    expect(() => compiledScript(unstamped)).toThrow(/e\.bundle\.js has no stamp e\.bundle\.json beside it: build/);
    const altered = moduleFile('f.js', 'export function main() {}\n');
    const alteredBundle = stampedBundle(altered, '  main: () => main\n');
    writeFileSync(alteredBundle, '  main: () => main\n  other: () => other\n');
    expect(() => compiledScript(altered)).toThrow(
      /f\.bundle\.js is not the bundle its stamp f\.bundle\.json was written for/,
    );
    const other = moduleFile('g.js', 'export function main() {}\n');
    const otherBundle = stampedBundle(other, '  main: () => main\n');
    const sibling = join(dirname(fileURLToPath(other)), 'h.js');
    writeFileSync(sibling, 'export function main() {}\n');
    writeFileSync(
      stampFileOf(otherBundle),
      JSON.stringify(bundleStamp(otherBundle, '  main: () => main\n', [sibling])),
    );
    expect(() => compiledScript(other)).toThrow(/g\.bundle\.js was not bundled from .*g\.js/);
    writeFileSync(stampFileOf(otherBundle), '{"bundle": 1}');
    expect(() => compiledScript(other)).toThrow(/its stamp .*g\.bundle\.json names no bundle and modules/);
  });

  it('refuses an entry its bundle does not export, or a closing <script>', () => {
    const plain = moduleFile('c.js', '');
    stampedBundle(plain, '  main: () => main\n');
    expect(() => pageScript(plain, 'other')).toThrow(/exports no function other/);
    const closes = moduleFile('d.js', '');
    stampedBundle(closes, "  main: () => main\n'</script>'\n");
    expect(() => pageScript(closes, 'main')).toThrow(/closing tag/);
  });
});
