/**
 * What the self-contained pages (report.html, sweep.html, bench.html, shrink.html, a
 * campaign's summary.html) inline, so that each stays one file that loads nothing:
 *
 * - their style sheets, src/report/browser/*.css: real files that Biome lints, read from
 *   the package at run time (tsc does not copy them into dist/, so they are read from
 *   src/ both from sources and from dist/; package.json ships them);
 * - their scripts, functions in a browser/ folder (src/report/browser/, src/sweep/browser/, src/bench/browser/): type-checked against the DOM and
 *   the data they are given, and inlined by their source text (whichever of tsc or the
 *   test runner compiled them), so no bundler is needed;
 * - uPlot's script and styles, from its package.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../util/paths.js';

/** The style sheets in src/report/browser/, by name without .css. */
export type PageStyle = 'report' | 'measurement' | 'uplot-fonts' | 'shrink' | 'campaign-summary';

const styles = new Map<PageStyle, string>();
/** A style sheet of src/report/browser/, read once, to inline into a <style> element. */
export function pageStyle(name: PageStyle): string {
  let css = styles.get(name);
  if (css === undefined) {
    css = readFileSync(join(packageRoot, 'src', 'report', 'browser', `${name}.css`), 'utf8');
    if (/<\/style/i.test(css)) throw new Error(`${name}.css cannot be inlined: it contains a closing tag`);
    styles.set(name, css);
  }
  return css;
}

/**
 * A <script> body that runs `main` in the page: with the JSON in the element `dataId`
 * (a `<script type="application/json">`) when given. `main` is inlined by its source text,
 * so it must reach nothing outside its own body but the page's globals.
 */
export function inlineCall(main: () => void): string;
export function inlineCall<T>(main: (data: T) => void, dataId: string): string;
export function inlineCall(main: (data?: unknown) => void, dataId?: string): string {
  const args = dataId === undefined ? '' : `JSON.parse(document.getElementById(${JSON.stringify(dataId)}).textContent)`;
  // Strict, as a module's code is where it was compiled (a classic script is not by default).
  const js = `'use strict';\n(${main.toString()})(${args});`;
  if (/<\/script/i.test(js)) throw new Error(`${main.name} cannot be inlined: it contains a closing tag`);
  return js;
}

const require = createRequire(import.meta.url);
let uplotAssets: { js: string; css: string; version: string } | undefined;
/** uPlot's script and styles, read once, to inline into a page. */
export function uplot() {
  if (!uplotAssets) {
    const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
    const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
    const pkg = JSON.parse(readFileSync(require.resolve('uplot/package.json'), 'utf8')) as { version: string };
    if (/<\/script/i.test(js) || /<\/style/i.test(css))
      throw new Error('uPlot assets cannot be inlined: they contain a closing tag');
    uplotAssets = { js, css, version: pkg.version };
  }
  return uplotAssets;
}
