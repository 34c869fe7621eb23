/**
 * The build's second step (`npm run build`, after tsc): each page script's bundle
 * (src/report/page-bundle.ts) written into dist/ beside the entry's compiled module, where
 * page-assets.ts reads it, and beside it its stamp: the hashes of the compiled modules it
 * was bundled from (src/report/bundle-stamp.ts). A build tool, not shipped: package.json's
 * files leave dist/scripts out.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { bundleStamp, stampFileOf } from '../src/report/bundle-stamp.js';
import { bundlePage, bundlePathOf, compiledPathOf, pageEntries } from '../src/report/page-bundle.js';
import { packageRoot } from '../src/util/paths.js';

for (const entry of pageEntries()) {
  const out = bundlePathOf(entry);
  const { js, inputs } = bundlePage(entry);
  const compiled = inputs.map((input) => compiledPathOf(input));
  const unbuilt = compiled.find((path) => !existsSync(path));
  if (unbuilt !== undefined) throw new Error(`${unbuilt} is missing: bundle the pages after tsc (npm run build)`);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, js);
  writeFileSync(stampFileOf(out), `${JSON.stringify(bundleStamp(out, js, compiled), null, 2)}\n`);
  console.log(`${relative(packageRoot, out)}  ${(js.length / 1024).toFixed(1)} kB, from ${compiled.length} modules`);
}
