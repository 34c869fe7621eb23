import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../util/paths.js';
import { bundlePageScript, bundlePathOf, pageEntries } from './page-bundle.js';

/** An entry module in a fresh folder. */
function entryFile(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lockchaos-page-entry-')), 'page.ts');
  writeFileSync(path, text);
  return path;
}

describe('page script bundles', () => {
  it('finds each page entry: the .ts files directly in a browser/ folder, not their modules or tests', () => {
    expect(pageEntries().map((p) => p.slice(packageRoot.length + 1))).toEqual([
      'src/bench/browser/plots.ts',
      'src/report/browser/report-page.ts',
      'src/report/browser/sortable-tables.ts',
      'src/sweep/browser/plots.ts',
    ]);
  });

  it('puts a bundle in dist/ beside the compiled entry', () => {
    expect(bundlePathOf(join(packageRoot, 'src/report/browser/report-page.ts'))).toBe(
      join(packageRoot, 'dist/src/report/browser/report-page.bundle.js'),
    );
  });

  it("bundles an entry and the modules it imports into one IIFE that names the entry's exports", () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-page-modules-'));
    writeFileSync(join(dir, 'twice.ts'), 'export const twice = (x: number): number => x * 2;\n');
    writeFileSync(
      join(dir, 'page.ts'),
      "import { twice } from './twice.js';\nexport function main(d: number): void {\n  document.title = String(twice(d));\n}\n",
    );
    const js = bundlePageScript(join(dir, 'page.ts'));
    expect(js).toMatch(/^"use strict";\nvar lockchaosPage = \(\(\) => \{\n/);
    expect(js).toMatch(/^ {4}main: \(\) => main$/m);
    expect(js).toContain('var twice = (x) => x * 2;');
    expect(js).not.toMatch(/^\s*(import|export)\s/m);
    const run = new Function('document', `${js}\nlockchaosPage.main(21);`);
    const document = { title: '' };
    run(document);
    expect(document.title).toBe('42');
  });

  it('refuses an entry that imports a package: a page inlines its own modules only', () => {
    const uplot = join(packageRoot, 'node_modules/uplot/dist/uPlot.esm.js');
    const entry = entryFile(`import uPlot from '${uplot}';\nexport function main(): unknown {\n  return uPlot;\n}\n`);
    expect(() => bundlePageScript(entry)).toThrow(/imports node_modules\/uplot\/dist\/uPlot\.esm\.js: a page bundles/);
  });
});
