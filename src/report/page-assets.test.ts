import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

  it("inlines a page script's compiled module and calls its entry with the page's JSON", () => {
    // From the sources there is no .js beside report-page.ts: it is compiled from the .ts.
    const { html: script, hash } = pageScript(
      new URL('./browser/report-page.js', import.meta.url),
      'reportPage',
      'report-data',
    );
    expect(script).toMatch(/^<script type="module">/);
    expect(script).toMatch(/(^|>)export function reportPage\(D\) \{$/m);
    expect(script).not.toMatch(/^import /m); // its type imports are gone
    expect(script).not.toMatch(/: ReportPageData|declare const/); // and its types
    expect(script).toMatch(
      /\nreportPage\(JSON\.parse\(document\.getElementById\("report-data"\)\.textContent\)\);\n<\/script>$/,
    );
    // It parses as a module.
    const body = script.slice('<script type="module">'.length, -'</script>'.length);
    // The page's policy allows it by the hash of exactly that text.
    expect(hash).toBe(`'sha256-${createHash('sha256').update(body).digest('base64')}'`);
    const file = join(mkdtempSync(join(tmpdir(), 'lockchaos-page-script-')), 'page.mjs');
    writeFileSync(file, body);
    expect(() => execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' })).not.toThrow();
  });

  it('reads a compiled .js as it is, once', () => {
    const url = moduleFile(
      'plots.js',
      'const K = 2;\nexport function plots(d) {\n  return d * K;\n}\n//# sourceMappingURL=plots.js.map\n',
    );
    expect(compiledScript(url)).toBe('const K = 2;\nexport function plots(d) {\n  return d * K;\n}');
    expect(pageScript(url, 'plots').html).toBe(`<script type="module">${compiledScript(url)}\nplots();\n</script>`);
  });

  it('refuses a script that imports a value, lacks its entry, or would close its <script>', () => {
    const imports = moduleFile('a.js', "import { x } from './x.js';\nexport function main() { x(); }\n");
    expect(() => compiledScript(imports)).toThrow(/imports a value/);
    const plain = moduleFile('b.js', 'export function main() {}\n');
    expect(() => pageScript(plain, 'other')).toThrow(/exports no function other/);
    const closes = moduleFile('c.js', "export function main() { return '</' + 'x' + '</script>'; }\n");
    expect(() => pageScript(closes, 'main')).toThrow(/closing tag/);
  });
});
