/**
 * The build's second step (`npm run build`, after tsc): each page script's bundle
 * (src/report/page-bundle.ts) written into dist/ beside the entry's compiled module, where
 * page-assets.ts reads it. A build tool, not shipped: package.json's files leave dist/scripts out.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { bundlePageScript, bundlePathOf, pageEntries } from '../src/report/page-bundle.js';
import { packageRoot } from '../src/util/paths.js';

for (const entry of pageEntries()) {
  const out = bundlePathOf(entry);
  const js = bundlePageScript(entry);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, js);
  console.log(`${relative(packageRoot, out)}  ${(js.length / 1024).toFixed(1)} kB`);
}
