/**
 * A run folder given on the command line, with links resolved: `store/latest` names
 * another run after the next one, so what is written into a run's files (its header, its
 * replay commands) must name the run itself, not the link. Kept relative to the working
 * folder when it lies under it, as the user wrote it.
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, normalize, relative } from 'node:path';

/** The folder `given` names, links resolved; `renamed` when that is not how it was written. */
export function resolvedRunDir(given: string): { dir: string; renamed: boolean } {
  if (!existsSync(given)) return { dir: given, renamed: false };
  const real = realpathSync(given);
  const rel = relative(realpathSync(process.cwd()), real);
  const dir = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : real;
  const asGiven = normalize(given).replace(/\/+$/, '');
  return { dir, renamed: dir !== asGiven && real !== asGiven };
}
