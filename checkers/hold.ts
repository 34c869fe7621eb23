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
