/** Messages between the runner and its client worker processes (Node IPC, JSON). */
import type { NodeAddress } from '../backends/backend.js';
import type { UnindexedOp } from '../history/recorder.js';
import type { WorkloadOptions } from '../../workloads/workload.js';

export interface WorkerConfig {
  client: number;
  backend: string;
  nodes: NodeAddress[];
  /** The data store, directly or through this client's proxy. */
  store: NodeAddress;
  workload: string;
  options: WorkloadOptions;
  requestTimeoutMs: number;
  seed: number;
  /** The test's origin on CLOCK_MONOTONIC, in ns, as a decimal string (a bigint). */
  origin: string;
}

export type ToWorker = { type: 'start'; config: WorkerConfig } | { type: 'stop' };

export type FromWorker = { type: 'op'; op: UnindexedOp } | { type: 'done' } | { type: 'error'; message: string };
