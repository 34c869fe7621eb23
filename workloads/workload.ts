/**
 * The workload protocol: what each client does in its loop, inside a worker process. A
 * workload gets a lock client, the data store, a recorder, and a signal that says stop;
 * it records every request through the recorder.
 */
import type { RunChecker } from '../checkers/checker.js';
import type { LockClient } from '../src/backends/backend.js';
import type { DataStore } from '../src/datastore/datastore.js';
import type { Recorder } from '../src/history/recorder.js';
import type { Rng } from '../src/util/rng.js';

/**
 * What a workload's clients are given: the run's parameters, whole and by their own names
 * (src/run-data/parameters.ts; a workload declares here those it reads), and the lock and
 * the register.
 */
export interface WorkloadOptions {
  /** The lock all clients contend for. */
  lock: string;
  /** The data store register the lock protects. */
  storeKey: string;
  ttlMs: number;
  /** How long a holder keeps the lock between read and write (lock-set) or acquire and release (mutex). */
  holdMs: number;
  /** Give up an acquire after this long (recorded as `fail`). */
  acquireTimeoutMs: number;
  /** Target cycles per second across all clients; 0: as fast as they go. */
  rate: number;
  concurrency: number;
  fencing: boolean;
}

export interface ClientContext {
  /** Which client this is, 0..concurrency-1. */
  client: number;
  lock: LockClient;
  /** The data store, for a workload that uses it (usesStore). */
  store?: DataStore;
  recorder: Recorder;
  rng: Rng;
  opts: WorkloadOptions;
  /** Aborted when the run's time is up: finish the current cycle's request and return. */
  stop: AbortSignal;
  /**
   * The client is at a named code point (STANDARD_POINTS, or a library's own): resolves
   * when the nemesis lets it go on (at once, unless a fault is aimed at the point).
   */
  point?: (name: string) => Promise<void>;
}

/**
 * The code points every client reaches, whatever its library: after a grant (before the
 * holder uses it), as its hold begins (lock-set: after its read, before its write; mutex:
 * after its grant) and before a release; `in-extend` is a library's auto-extension, which
 * only a client program can announce (docs/client-protocol.md).
 */
export const STANDARD_POINTS = ['after-grant', 'in-hold', 'before-release', 'in-extend'] as const;

export interface Workload {
  name: string;
  description: string;
  /** Runs the client's loop until ctx.stop is aborted. */
  client(ctx: ClientContext): Promise<void>;
  /**
   * Whether its clients read and write the data store; then the run ends with a final read
   * of it (after the nemesis heals). A worker of a workload without it never loads the
   * store's client library (ioredis: about 0.4 s of CPU a worker).
   */
  usesStore: boolean;
  /** The checkers a run of it gets, in the summary's order; each says whether it counts. */
  checkers: readonly RunChecker[];
}
