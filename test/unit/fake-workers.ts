/**
 * Worker pools of real child processes running fake workers (test/unit/fixtures/fake-worker.mjs),
 * which speak the worker protocol without a lock service: each client's workload names how
 * its fake behaves. Pools made here are killed after each test.
 */
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { UnindexedOp } from '../../src/history/recorder.js';
import { WorkerPool } from '../../src/runner/worker-pool.js';
import { packageRoot } from '../../src/util/paths.js';
import { procStatFields } from '../../src/util/proc-stat.js';
import type { WorkerConfig } from '../../src/worker/protocol.js';

const FAKE = join(packageRoot, 'test/unit/fixtures/fake-worker.mjs');
const pools: WorkerPool[] = [];

afterEach(() => {
  for (const p of pools.splice(0)) p.kill();
});

/** A started pool of one fake worker per workload, and the ops it recorded. */
export function fakePool(workloads: string[]): { pool: WorkerPool; ops: UnindexedOp[] } {
  const ops: UnindexedOp[] = [];
  const configs = workloads.map((workload, client) => ({ client, workload }) as unknown as WorkerConfig);
  const p = new WorkerPool('test', configs.length, (op) => ops.push(op), FAKE);
  p.start(configs);
  pools.push(p);
  return { pool: p, ops };
}

export const until = async (done: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Whether a process is alive (a zombie, dead but not yet reaped, is not). */
export function running(pid: number): boolean {
  const state = procStatFields(pid)?.state;
  return state !== undefined && state !== 'Z';
}

/** Whether a process is stopped (SIGSTOP). */
export function stopped(pid: number): boolean {
  return procStatFields(pid)?.state === 'T';
}
