/**
 * The stamp the build writes beside a page script's bundle (NAME.bundle.js →
 * NAME.bundle.json): the SHA-256 of the bundle and of each compiled module (tsc's .js in
 * dist/) that it was bundled from. A page reads a bundle only when the modules beside it
 * are still those (page-assets.ts): a tsc run without the bundling step (a page would
 * show an older script than its code) is caught by content, not by file times, which no
 * install keeps (npm writes a package's files in tarball order, each with the time it was
 * written).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, sep } from 'node:path';

export interface BundleStamp {
  /** SHA-256 (hex) of the bundle's text. */
  bundle: string;
  /** Each compiled module's path relative to the bundle's folder ('/'-separated) → its SHA-256 (hex). */
  modules: Record<string, string>;
}

/** The stamp's file beside a bundle: report-page.bundle.js → report-page.bundle.json. */
export const stampFileOf = (bundle: string) => bundle.replace(/\.js$/, '.json');

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** The stamp of `bundleText`, to be written at `bundlePath`, bundled from the compiled modules `modules` (absolute paths). */
export function bundleStamp(bundlePath: string, bundleText: string, modules: string[]): BundleStamp {
  const dir = dirname(bundlePath);
  const entries = modules
    .map((m) => [relative(dir, m).split(sep).join('/'), sha256(readFileSync(m))] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { bundle: sha256(bundleText), modules: Object.fromEntries(entries) };
}

/**
 * Why the bundle at `bundlePath` must not be inlined for the compiled entry `entryPath`,
 * or undefined when its stamp holds: the stamp is there, names the entry, and the bundle
 * and every module it names hash as they did when it was bundled.
 */
export function staleBundle(bundlePath: string, entryPath: string): string | undefined {
  const stampPath = stampFileOf(bundlePath);
  if (!existsSync(stampPath)) return `page script ${bundlePath} has no stamp ${basename(stampPath)} beside it`;
  let stamp: unknown;
  try {
    stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return `page script ${bundlePath}: its stamp ${stampPath} is not JSON`;
  }
  const s = stamp as Partial<BundleStamp> | null;
  const modules = s?.modules;
  if (typeof s?.bundle !== 'string' || typeof modules !== 'object' || modules === null) {
    return `page script ${bundlePath}: its stamp ${stampPath} names no bundle and modules`;
  }
  if (sha256(readFileSync(bundlePath)) !== s.bundle) {
    return `page script ${bundlePath} is not the bundle its stamp ${basename(stampPath)} was written for`;
  }
  const dir = dirname(bundlePath);
  const entry = relative(dir, entryPath).split(sep).join('/');
  if (!(entry in modules)) return `page script ${bundlePath} was not bundled from ${entryPath}`;
  for (const [name, hash] of Object.entries(modules)) {
    const path = join(dir, name);
    // The names are the build's; still, a stamp names compiled modules, each a plain file.
    if (isAbsolute(name) || !name.endsWith('.js'))
      return `page script ${bundlePath}: its stamp names ${name}, not a module`;
    if (!existsSync(path) || !statSync(path).isFile())
      return `page script ${bundlePath} was bundled from ${path}, which is missing`;
    if (sha256(readFileSync(path)) !== hash) return `page script ${bundlePath} was bundled from another ${path}`;
  }
  return undefined;
}
