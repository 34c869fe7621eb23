/**
 * The backend protocol: what a lock service must provide to be tested. A backend knows how
 * to start its cluster (node specs with readiness) and how to make a client. Clients run
 * inside worker processes, so they are built from plain data (node names and addresses).
 */
import type { NodeHandle, NodeSpec } from '../cluster/cluster.js';
import type { Rng } from '../util/rng.js';

/** Where a client finds a node: plain data, passed to worker processes. */
export interface NodeAddress {
  name: string;
  ip: string;
  /** Set when the client must go through a proxy (latency, client cuts): use it, not the default. */
  port?: number;
}

/** What a client believes after a successful acquire. */
export interface Grant {
  lock: string;
  /** The value that marks this client as the holder on the server (unique per grant). */
  owner: string;
  /** Milliseconds the client believes the lease lasts, counted from when it asked. */
  validityMs: number;
  /** A fencing token from the lock service, where it has one; grows with every grant. */
  token?: number;
  /** Votes the grant got (Redlock), for the record. */
  votes?: number;
}

export interface AcquireOptions {
  ttlMs: number;
  /** Give up (a `fail`: the client does not hold the lock) after this long. */
  timeoutMs: number;
}

export interface ClientOptions {
  /** Per-request timeout: a request with no answer by then ends as `info`. */
  requestTimeoutMs: number;
  /** For backoff jitter between acquire attempts. */
  rng: Rng;
  /** Identifies the client in owner values ("w3"). */
  clientId: string;
  /**
   * Called at named points inside a request (e.g. 'redlock:after-votes'), where the
   * nemesis may pause the client process in the middle of the algorithm.
   */
  pausePoint?: (where: string) => Promise<void>;
  /**
   * The client's own clock in ns, for algorithms that time themselves (Redlock's elapsed
   * check). The client-clock fault steps it; monotonic time when absent.
   */
  clock?: () => bigint;
}

export interface LockClient {
  /** The grant, or null when the lock could not be had before opts.timeoutMs. */
  acquire(lock: string, opts: AcquireOptions): Promise<Grant | null>;
  /** True if the client still held the lock and released it; false if it no longer held it. */
  release(grant: Grant): Promise<boolean>;
  close(): Promise<void>;
}

export interface BackendOptions {
  /** Number of lock-service nodes (Redlock: masters). */
  nodes?: number;
}

export interface Backend {
  name: string;
  description: string;
  /** Whether grants carry a fencing token from a linearizable source; if not, `why`. */
  fencing: { supported: true } | { supported: false; why: string };
  nodeSpecs(opts: BackendOptions): NodeSpec[];
  /** A client connected to the nodes, ready for its first request. */
  client(nodes: NodeAddress[], opts: ClientOptions): Promise<LockClient>;
  /** The name of the current leader (or primary) node, where the service has one. */
  leader?(nodes: NodeHandle[]): Promise<string | undefined>;
}

/**
 * An error after which the client knows the request had no effect (it was never sent).
 * Everything else a client throws is indefinite: the history records `info`.
 */
export class DefiniteFailure extends Error {
  override name = 'DefiniteFailure';
}

/** Acquire retries: min(Tmax, Tbase * 2^attempt) + Uniform(0, jitter), seeded. */
export const BACKOFF = { baseMs: 5, maxMs: 100, jitterMs: 25 };

export function backoffMs(attempt: number, rng: Rng): number {
  return Math.min(BACKOFF.maxMs, BACKOFF.baseMs * 2 ** attempt) + rng.uniform(0, BACKOFF.jitterMs);
}
