/** Messages between the runner and its client worker processes (Node IPC, JSON). */

import type { WorkloadOptions } from '../../workloads/workload.js';
import type { BackendOptions, ClientLogin, NodeAddress } from '../backends/backend.js';
import type { UnindexedOp } from '../history/recorder.js';

/**
 * The run's parameters a client reads: the workload's own (WorkloadOptions) and those of its
 * lock client. The runner sends its whole TestConfig (run-data/parameters.ts, where each field
 * is described), which has them all.
 */
export interface ClientParameters extends Omit<WorkloadOptions, 'lock' | 'storeKey'> {
  workload: string;
  seed: number;
  backend: string;
  backendModule?: string;
  clientCommand?: string;
  clientDir?: string;
  requestTimeoutMs: number;
  releaseTimeoutMs?: number;
  backoffJitterMs?: number;
}

/** The part of a resolved run (run-data/resolve.ts) every client of it is given. */
export interface ClientRun {
  /** The run's parameters: a client reads what it needs of them where it acts. */
  config: ClientParameters;
  /** What the backend's nodeSpecs were given (lease length, the backend's options). */
  backendOptions: BackendOptions;
  /** The backend's own name, for a client program's init. */
  backendName: string;
  /** What its servers take as a login, for a client program's init (Backend.clientLogin). */
  login?: ClientLogin;
  /** The lock all clients contend for, and the data store register it protects. */
  lock: string;
  storeKey: string;
}

export interface WorkerConfig {
  client: number;
  /** The first history process number (a client that replaces one the nemesis killed: client-kill); default: the client's index. */
  firstProcess?: number;
  nodes: NodeAddress[];
  /** The data store, directly or through this client's proxy. */
  store: NodeAddress;
  run: ClientRun;
}

export type ToWorker =
  /**
   * The modules the client will need, loaded now (the backend's, or, for a client program,
   * the program client's, and the store's): their CPU then overlaps the cluster's start, not
   * the workload slot. `yieldCpu`: other runs' workloads go on meanwhile (a campaign's cell
   * started ahead): load at a lower priority, taken back at 'start'. `launch`: the client
   * program, started now (its interpreter, its imports) and given its init at 'start';
   * `client` is the slot this worker will be given.
   */
  | {
      type: 'preload';
      backend: string;
      store: boolean;
      yieldCpu: boolean;
      launch?: { command: string; cwd?: string; client: number };
    }
  | { type: 'start'; config: WorkerConfig }
  /** Everyone is connected: start the workload, stamping times from this origin (ns on CLOCK_MONOTONIC, a decimal bigint). */
  | { type: 'go'; origin: string }
  | { type: 'stop' }
  /** Interrupted: send what was recorded and exit now, whatever is in flight. */
  | { type: 'stop-now' }
  /** Ask the runner before going on from this code point (a fault is aimed at it: client-pause:at=...). */
  | { type: 'arm-point'; where: string }
  | { type: 'disarm-point'; where: string }
  /**
   * Go on from the code point asked about (`seq` of its 'at-point'), the client's own clock
   * first stepped by clockStepMs (the client-clock fault: NTP stepping it during the stop).
   */
  | { type: 'point-go'; seq: number; clockStepMs?: number };

export type FromWorker =
  /** Operations in the order the worker recorded them. */
  | { type: 'ops'; ops: UnindexedOp[] }
  /** Connected to the lock service and the store, waiting for 'go'. */
  | { type: 'ready' }
  | { type: 'error'; message: string }
  /** The client program is running and answered init (a client pause stops it too). */
  | { type: 'program-started'; pid: number }
  /** At an armed code point: waits for 'point-go' with this seq. */
  | { type: 'at-point'; where: string; seq: number }
  /** How often the client reached each code point so far (cumulative), for coverage. */
  | { type: 'points'; reached: Record<string, number> }
  /** The client program announced more distinct code points than `cap` (client-protocol.ts): the rest are not counted. */
  | { type: 'points-capped'; cap: number }
  /** The client program stopped speaking the protocol; the worker ends its loop. */
  | { type: 'program-broken'; why: string }
  /** The worker did not run from fromNs to toNs (ns since the origin): paused, or not scheduled. */
  | { type: 'stall'; fromNs: number; toNs: number };
