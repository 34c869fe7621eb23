/**
 * A hold: one process's grant of one lock, from its acquire's ok to its release (or to
 * where it was last seen). Its own module: the mutual-exclusion checker finds them, and the
 * lease (lease.ts), which that checker reads, is dated from them.
 */
export interface Hold {
  process: number;
  lock: string;
  start: number;
  end: number;
  acquireIndex: number;
  /** Index of the release invocation; undefined when the hold ended otherwise. */
  releaseIndex?: number;
  token?: number;
}

/** A hold as results.json stores it: JSON turns an open end (Infinity) into null, and a stored file may lack any field. */
export type StoredHold = Partial<Omit<Hold, 'end'>> & { end?: number | null };

/** The stored hold as the checkers read it; undefined when a field it needs is missing. */
export function storedHold(h: StoredHold): Hold | undefined {
  const { process, start, lock, acquireIndex } = h;
  if (typeof process !== 'number' || typeof start !== 'number' || typeof lock !== 'string') return undefined;
  if (typeof acquireIndex !== 'number') return undefined;
  return {
    ...h,
    process,
    start,
    lock,
    acquireIndex,
    end: typeof h.end === 'number' ? h.end : Number.POSITIVE_INFINITY,
  };
}
