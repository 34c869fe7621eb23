/**
 * The one gate of every path `campaign merge --store` writes or removes in a store. The
 * path is made of names and times a shard's summary.json gave (checked, but a store itself
 * is restored from a CI cache anyone with a branch can write): so before a write or a
 * removal the path is resolved as the file system would resolve it, links and all, and it
 * must lie inside the store's own real folder. A `campaigns/<name>` that is a link to
 * another team's store, or a name of `../..`, stops here, in one line.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../util/errors.js';

/** `path` as the file system resolves it: its deepest existing folder's real path, then the names not made yet. */
function resolvedPath(path: string): string {
  const rest: string[] = [];
  let probe = resolve(path);
  for (;;) {
    try {
      lstatSync(probe);
      break;
    } catch {
      const up = dirname(probe);
      if (up === probe) break;
      rest.unshift(basename(probe));
      probe = up;
    }
  }
  // An existing link that leads nowhere: realpath throws, and the write would follow it.
  try {
    return join(realpathSync(probe), ...rest);
  } catch {
    throw new UserError(`${probe} is a link that leads nowhere: remove it from the store`);
  }
}

/**
 * `path`, once it is known to resolve inside `store` (and is not the store itself); else a
 * UserError naming the path, where it leads, and what was about to be done there.
 */
export function insideStore(store: string, path: string, doing: 'write' | 'remove'): string {
  const root = resolvedPath(store);
  const real = resolvedPath(path);
  const rel = relative(root, real);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new UserError(
      `refused to ${doing} ${path}: it resolves to ${real}, outside the store ${root} (a link or a name with '..' in the store or a shard): remove it, and give the folders lockchaos wrote`,
    );
  }
  return path;
}

/** `path`, unless it is a link (a write would follow it wherever it leads): a folder given with --out may hold one. */
export function notALink(path: string): string {
  if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) {
    throw new UserError(`refused to write ${path}: it is a link, and a merge writes nothing through one: remove it`);
  }
  return path;
}

/**
 * cpSync's filter that copies no link (a merge's rule): each one skipped is added to
 * `skipped`. With `writable`, every destination is checked by it before it is written (a
 * folder already there may hold a link that leads out of the store).
 */
export const copyNoLink =
  (skipped: string[], writable?: (path: string) => string) =>
  (src: string, dest: string): boolean => {
    if (lstatSync(src).isSymbolicLink()) {
      skipped.push(src);
      return false;
    }
    writable?.(dest);
    return true;
  };
