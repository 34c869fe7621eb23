/**
 * A page script's bundle: its entry module (a .ts file directly in a browser/ folder) and
 * every module it imports, in one IIFE that assigns the entry's exports to PAGE_GLOBAL.
 * That is what a page inlines (page-assets.ts), so a page script can be modules of one
 * concept each. The build (`npm run build`, scripts/bundle-pages.ts) writes each bundle
 * into dist/ beside the entry's compiled module, with its stamp (bundle-stamp.ts); from the sources (the tests) it is made
 * here when asked for. esbuild is a devDependency: a package installed from the registry
 * reads the bundles its build wrote and never loads it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { packageRoot } from '../util/paths.js';

/** The name the bundle gives its entry's exports, in the page's inline module script. */
export const PAGE_GLOBAL = 'lockchaosPage';

/** The bundle's file name beside the entry's compiled module: report-page.js → report-page.bundle.js. */
export const bundleFileOf = (compiledEntry: string) => compiledEntry.replace(/\.js$/, '.bundle.js');

const require = createRequire(import.meta.url);

/**
 * The bundle of the entry module `source` (a .ts path), and the modules that went into it
 * (absolute .ts paths: the build stamps the bundle with their compiled .js, bundle-stamp.ts).
 * Only the package's own modules go in: a page loads nothing and its scripts come with it,
 * so an import of a package (uPlot is the page's global, its types imported as types) is an
 * error, not a bundled copy.
 */
export function bundlePage(source: string): { js: string; inputs: string[] } {
  const esbuild = require('esbuild') as typeof import('esbuild');
  const result = esbuild.buildSync({
    entryPoints: [source],
    absWorkingDir: packageRoot,
    // The project's compiler options (strict: the bundle says "use strict"), wherever the entry is.
    tsconfig: join(packageRoot, 'tsconfig.json'),
    bundle: true,
    format: 'iife',
    globalName: PAGE_GLOBAL,
    platform: 'browser',
    target: 'es2022',
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const packages = Object.keys(result.metafile.inputs).filter((input) => input.includes('node_modules/'));
  if (packages.length > 0) {
    throw new Error(
      `page script ${source} imports ${packages.join(', ')}: a page bundles the package's own modules only`,
    );
  }
  const [output] = result.outputFiles;
  if (!output) throw new Error(`page script ${source}: esbuild wrote nothing`);
  return { js: output.text, inputs: Object.keys(result.metafile.inputs).map((input) => resolve(packageRoot, input)) };
}

/** The bundle of the entry module `source` (bundlePage), its text only. */
export const bundlePageScript = (source: string): string => bundlePage(source).js;

/** The page scripts' entries: every .ts directly in a browser/ folder under src/ (its modules are in subfolders). */
export function pageEntries(root = packageRoot): string[] {
  const src = join(root, 'src');
  return readdirSync(src, { withFileTypes: true })
    .filter((area) => area.isDirectory() && existsSync(join(src, area.name, 'browser')))
    .map((area) => join(src, area.name, 'browser'))
    .flatMap((dir) =>
      readdirSync(dir)
        .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts'))
        .map((name) => join(dir, name)),
    )
    .sort();
}

/** What tsc compiles the module `source` (a .ts path under `root`) to, under dist/. */
export const compiledPathOf = (source: string, root = packageRoot) =>
  join(root, 'dist', relative(root, source)).replace(/\.ts$/, '.js');

/** Where the build puts an entry's bundle: under dist/, beside what tsc compiled it to. */
export const bundlePathOf = (source: string, root = packageRoot) => bundleFileOf(compiledPathOf(source, root));
