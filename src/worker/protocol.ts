/** Messages between the runner and its client worker processes (Node IPC, JSON). */

import type { WorkloadOptions } from '../../workloads/workload.js';
import type { BackendOptions, NodeAddress } from '../backends/backend.js';
import type { UnindexedOp } from '../history/recorder.js';

export interface WorkerConfig {
  client: number;
  backend: string;
  nodes: NodeAddress[];
  /** The data store, directly or through this client's proxy. */
  store: NodeAddress;
  workload: string;
  options: WorkloadOptions;
  requestTimeoutMs: number;
  /** The run's backoff jitter; undefined: the default. */
  backoffJitterMs?: number;
  seed: number;
  /** What the backend's nodeSpecs were given (lease length, the backend's options). */
  backendOptions: BackendOptions;
  /**
   * A client program to drive over the client protocol instead of the backend's own
   * client (--client-command), and the folder it runs in.
   */
  clientCommand?: { command: string; cwd?: string };
  /** The backend's own name, for the client program's init. */
  backendName: string;
}

export type ToWorker =
  | { type: 'start'; config: WorkerConfig }
  /** Everyone is connected: start the workload, stamping times from this origin (ns on CLOCK_MONOTONIC, a decimal bigint). */
  | { type: 'go'; origin: string }
  | { type: 'stop' }
  /**
   * Stop yourself (SIGSTOP) the next time the client reaches this pause point; when
   * resumed, step the client's own clock by clockStepMs (the client-clock fault).
   */
  | { type: 'arm-pause'; where: string; clockStepMs?: number }
  | { type: 'disarm-pause' };

export type FromWorker =
  /** Operations in the order the worker recorded them. */
  | { type: 'ops'; ops: UnindexedOp[] }
  /** Connected to the lock service and the store, waiting for 'go'. */
  | { type: 'ready' }
  | { type: 'error'; message: string }
  /** Sent just before the worker stops itself at an armed pause point. */
  | { type: 'self-paused'; where: string }
  /** The client program is running and answered init (a client pause stops it too). */
  | { type: 'program-started'; pid: number }
  /** The client program stopped speaking the protocol; the worker ends its loop. */
  | { type: 'program-broken'; why: string };
