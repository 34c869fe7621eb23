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
  /**
   * The port to connect to: the node's own, or a proxy's when the client must go through
   * one (latency, client cuts); absent in older records: the service's default.
   */
  port?: number;
  /**
   * With a proxy: the node's own address behind it. A service that hands out node addresses
   * (Sentinel naming the primary) maps them to the proxy with this.
   */
  direct?: { ip: string; port: number };
}

/** What a client believes after a successful acquire. */
export interface Grant {
  lock: string;
  /** The value that marks this client as the holder on the server (unique per grant). */
  owner: string;
  /** Milliseconds the client believes the lease still lasts once acquire returns (ok is stamped then). */
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

/**
 * What a client is made with. The run's parameters come in whole, by their own names
 * (run-data/parameters.ts): a client declares here those it reads.
 */
export interface ClientOptions {
  /** Per-request timeout: a request with no answer by then ends as `info`. */
  requestTimeoutMs: number;
  /** For backoff jitter between acquire attempts. */
  rng: Rng;
  /** The run's backoff jitter (--backoff-jitter): give it to backoffMs; undefined: the default. */
  backoffJitterMs?: number;
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
  /** The run's lease length and the backend's options, as nodeSpecs had them. */
  backend?: BackendOptions;
}

export interface LockClient {
  /** The grant, or null when the lock could not be had before opts.timeoutMs. */
  acquire(lock: string, opts: AcquireOptions): Promise<Grant | null>;
  /**
   * True if the client still held the lock and released it; false, or `{ released: false,
   * reason }` with the library's own words, if it did not (it no longer held it). A thrown
   * DefiniteFailure is a failed release too, in its message's words; anything else thrown is
   * indefinite (`info`).
   */
  release(grant: Grant): Promise<ReleaseResult>;
  close(): Promise<void>;
}

/** A release that did not happen, with why, as the library said it. */
export interface NotReleased {
  released: false;
  reason: string;
}

/** What a release answers: a bare boolean (older module backends), or a refusal with its reason. */
export type ReleaseResult = boolean | NotReleased;

/** Why a release recorded as failed had no reason of its own: the history's words for a bare false. */
export const NOT_HELD = 'not-held';

/** Why a release did not happen (the library's words, else NOT_HELD); undefined: it was released. */
export function releaseFailure(result: ReleaseResult): string | undefined {
  if (result === true) return undefined;
  if (result === false) return NOT_HELD;
  return result.reason.trim() === '' ? NOT_HELD : result.reason;
}

export interface BackendOptions {
  /** Number of lock-service nodes (Redlock: masters). */
  nodes?: number;
  /**
   * The run's lease length. Services whose lease is a server setting (PostgreSQL's idle
   * session timeout) take it from here.
   */
  ttlMs?: number;
  /** The backend's own options (`--backend-option key=value`), checked against `options`. */
  settings?: Record<string, string>;
}

/**
 * Shifts every lock key's remaining TTL on a node by -ms, as a clock jump of ms would:
 * answers [keys expired, keys shifted]. How a service's clock faults are applied.
 */
export type ShiftTtls = (node: NodeHandle, ms: number) => Promise<[number, number]>;

/**
 * What a backend supports, declared, so that the nemesis asks instead of guessing from
 * names. A fault kind that needs a capability the backend lacks is refused in one line.
 */
export interface BackendCapabilities {
  /**
   * Clock faults (`clock`): how a node's clock moving is applied to the service, and on
   * which nodes (by default every lock node).
   */
  clock?: { how: string; shift: ShiftTtls; nodes?: (name: string) => boolean };
  /**
   * The named point inside acquire where the client has won a majority of votes and not yet
   * checked its elapsed time (`client-pause:in-acquire`, `client-clock`); the client calls
   * ClientOptions.pausePoint with this name there.
   */
  inAcquirePausePoint?: string;
  /**
   * The number of votes that is a bare majority of n nodes, for services that grant on a
   * majority of independent nodes (Redlock): `clock:bridge` waits for such a grant.
   */
  quorum?: (nodes: number) => number;
  /**
   * The fewest lock nodes the service is itself with, and why fewer are not (in words
   * for `nodes` nodes): `--nodes` below it is refused in one line. Redlock: 3, since a
   * majority of 1 or 2 masters tolerates no failed master.
   */
  minNodes?: { count: number; why: (nodes: number) => string };
  /**
   * The node's own clock, read from the service (Redis TIME), minus this machine's: ms, and
   * how it was read. node-clock records it before and during a warp, so that the record
   * says what the server's clock read, not what was asked of it.
   */
  serverTime?: { how: string; offsetMs: (node: NodeHandle) => Promise<number> };
}

/** A backend option: what it does and its default, shown by `lockchaos run --help`. */
export interface BackendOption {
  what: string;
  default: string;
  /** What is wrong with a value ('a whole number >= 0'), or undefined when it is fine. */
  check?: (value: string) => string | undefined;
}

/** A check for options that take a whole number >= 0. */
export const wholeNumber = (value: string) =>
  /^\d+$/.test(value.trim()) ? undefined : `takes a whole number >= 0, got '${value}'`;

/** A login to a backend's servers (client-protocol.ts: init's `login`). */
export interface ClientLogin {
  user: string;
  /** None: the servers take the user without one (trust). */
  password?: string;
  database?: string;
}

export interface Backend {
  name: string;
  description: string;
  /** Whether grants carry a fencing token from a linearizable source; if not, `why`. */
  fencing: { supported: true } | { supported: false; why: string };
  /** Why this backend cannot run on this machine (an optional package missing), or undefined. */
  unavailable?(): string | undefined;
  /** Capabilities beyond acquire and release; none declared: none assumed. */
  capabilities?: BackendCapabilities;
  /** Options the backend takes (`--backend-option name=value`), by name. */
  options?: Record<string, BackendOption>;
  /**
   * What a client logs in to its servers with, where they ask for a login (PostgreSQL's
   * user and database): a client program is given it in its init (`login`), rather than
   * guess it.
   */
  clientLogin?: ClientLogin;
  nodeSpecs(opts: BackendOptions): NodeSpec[];
  /** A client connected to the nodes, ready for its first request. */
  client(nodes: NodeAddress[], opts: ClientOptions): Promise<LockClient>;
  /**
   * The name of the current leader (or primary) node, where the service has one: declares
   * the aims `leader` and `isolate-leader`.
   */
  leader?(nodes: NodeHandle[]): Promise<string | undefined>;
}

// A backend's client throws it; the recorder reads it (history/recorder.ts).
export { DefiniteFailure } from '../history/definite-failure.js';

/** Acquire retries: min(Tmax, Tbase * 2^attempt) + Uniform(0, jitter), seeded. */
export const BACKOFF = { baseMs: 5, maxMs: 100, jitterMs: 25 };

/** The wait before acquire retry `attempt`; pass the run's ClientOptions.backoffJitterMs as jitterMs. */
export function backoffMs(attempt: number, rng: Rng, jitterMs = BACKOFF.jitterMs): number {
  // Drawn even without jitter, so that the client's other random choices stay the same.
  const u = rng.uniform(0, 1);
  return Math.min(BACKOFF.maxMs, BACKOFF.baseMs * 2 ** attempt) + u * jitterMs;
}
