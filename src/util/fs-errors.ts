/**
 * Writing the store failed for a reason outside lockchaos (a full disk, a read-only or
 * forbidden folder): one UserError line naming the path and the fix, not a stack trace.
 */
import { UserError } from '../util/errors.js';

const WHY: Record<string, [why: string, fix: string]> = {
  ENOSPC: ['the disk is full', 'free space there, or give --store a folder on another disk'],
  EDQUOT: ['the disk quota is used up', 'free space there, or give --store a folder on another disk'],
  EROFS: ['the file system is read-only', 'give --store a folder you can write'],
  EACCES: ['permission denied', 'give --store a folder you can write'],
  EPERM: ['operation not permitted', 'give --store a folder you can write'],
  EIO: ['an input/output error', 'check the disk, or give --store a folder on another disk'],
};

/**
 * A UserError for a storage failure, or undefined when `err` is something else. `fix`, when
 * given, replaces the advice (which names --store, run's flag).
 */
export function storageError(err: unknown, path?: string, fix?: string): UserError | undefined {
  if (err instanceof UserError) return undefined;
  const e = err as NodeJS.ErrnoException | undefined;
  const entry = e?.code ? WHY[e.code] : undefined;
  if (!entry) return undefined;
  const why = entry[0];
  fix ??= entry[1];
  return new UserError(`cannot write ${e?.path ?? path ?? 'the run folder'}: ${why} (${e?.code}): ${fix}`);
}
