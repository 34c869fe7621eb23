/**
 * What the self-contained pages (report.html, sweep.html, bench.html, shrink.html, a
 * campaign's summary.html) inline, so that each stays one file that loads nothing:
 *
 * - their style sheets, src/report/browser/*.css: real files that Biome lints, read from
 *   the package at run time (tsc does not copy them into dist/, so they are read from
 *   src/ both from sources and from dist/; package.json ships them);
 * - their scripts: each an entry module directly in a browser/ folder (src/report/browser/,
 *   src/sweep/browser/, src/bench/browser/) with the modules it imports (in subfolders),
 *   type-checked against the DOM and the data they are given, bundled into one IIFE
 *   (page-bundle.ts) and inlined in a `<script type="module">` that then calls the entry's
 *   exported function (pageScript);
 * - uPlot's script and styles, from its package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../util/paths.js';
import { staleBundle } from './bundle-stamp.js';
import { type InlineScript, inlineScript } from './csp.js';
import { bundleFileOf, bundlePageScript, PAGE_GLOBAL } from './page-bundle.js';

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

const require = createRequire(import.meta.url);

const scripts = new Map<string, string>();
/**
 * A page script's bundle, read once. `module` is its entry's URL beside the page's code
 * (`new URL('./browser/report-page.js', import.meta.url)`): from dist/, the bundle the build
 * wrote beside the file tsc compiled it to (refused unless its stamp says it was bundled
 * from the compiled modules beside it, bundle-stamp.ts: a page must not show an older
 * script than its code); from the sources (the tests run them), bundled
 * here from the .ts, so that a test never inlines an out-of-date build.
 */
export function compiledScript(module: URL): string {
  let js = scripts.get(module.href);
  if (js !== undefined) return js;
  const path = fileURLToPath(module);
  const source = path.replace(/\.js$/, '.ts');
  if (existsSync(path)) {
    const bundle = bundleFileOf(path);
    if (!existsSync(bundle)) throw new Error(`page script ${bundle} is missing: build with npm run build`);
    const stale = staleBundle(bundle, path);
    if (stale !== undefined) throw new Error(`${stale}: build with npm run build`);
    js = readFileSync(bundle, 'utf8');
  } else if (existsSync(source)) js = bundlePageScript(source);
  else throw new Error(`page script ${path} is missing: build with npm run build`);
  js = js.trimEnd();
  scripts.set(module.href, js);
  return js;
}

/**
 * A page's script element: the bundle of `module` (compiledScript), then a call of its
 * entry's exported function `entry`, given the JSON of the element `dataId` (a
 * `<script type="application/json">`) when there is one. A module script is strict and
 * runs once the page is parsed. Its hash goes into the page's policy (csp.ts).
 */
export function pageScript(module: URL, entry: string, dataId?: string): InlineScript {
  const js = compiledScript(module);
  // esbuild's IIFE names each export of the entry in one line of its export map.
  if (!new RegExp(`^\\s+${entry}: \\(\\) => `, 'm').test(js)) {
    throw new Error(`page script ${fileURLToPath(module)} exports no function ${entry}`);
  }
  const args = dataId === undefined ? '' : `JSON.parse(document.getElementById(${JSON.stringify(dataId)}).textContent)`;
  const body = `${js}\n${PAGE_GLOBAL}.${entry}(${args});\n`;
  if (/<\/script/i.test(body)) throw new Error(`${entry} cannot be inlined: it contains a closing tag`);
  return inlineScript(body, 'module');
}

let uplotAssets: { script: InlineScript; css: string; version: string } | undefined;
/** uPlot's script element and styles, read once, to inline into a page. */
export function uplot() {
  if (!uplotAssets) {
    const js = readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8');
    const css = readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8');
    const pkg = JSON.parse(readFileSync(require.resolve('uplot/package.json'), 'utf8')) as { version: string };
    if (/<\/script/i.test(js) || /<\/style/i.test(css))
      throw new Error('uPlot assets cannot be inlined: they contain a closing tag');
    uplotAssets = { script: inlineScript(js), css, version: pkg.version };
  }
  return uplotAssets;
}
