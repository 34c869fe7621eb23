/**
 * WorkerPool with real child processes, but fake workers (test/unit/fixtures/fake-worker.mjs)
 * that speak the protocol without a lock service: readiness, the ops and who holds the lock,
 * a worker lost from outside, a pause point, and a stop that has to kill.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { UnindexedOp } from '../history/recorder.js';
import { packageRoot } from '../util/paths.js';
import type { WorkerConfig } from '../worker/protocol.js';
import { WorkerPool } from './workers.js';

const FAKE = join(packageRoot, 'test/unit/fixtures/fake-worker.mjs');
const pools: WorkerPool[] = [];

function pool(workloads: string[]): { pool: WorkerPool; ops: UnindexedOp[] } {
  const ops: UnindexedOp[] = [];
  const configs = workloads.map((workload, client) => ({ client, workload }) as unknown as WorkerConfig);
  const p = new WorkerPool('test', configs.length, (op) => ops.push(op), FAKE);
  p.start(configs);
  pools.push(p);
  return { pool: p, ops };
}

const until = async (done: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

/** Whether a process is alive (a zombie, dead but not yet reaped, is not). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

afterEach(() => {
  for (const p of pools.splice(0)) p.kill();
});

describe('WorkerPool', () => {
  it('is ready when every worker is; records their ops and follows who holds the lock', async () => {
    const { pool: p, ops } = pool(['ok', 'ok']);
    await p.ready(5000);
    p.go(0n);
    await until(() => ops.length === 5);
    expect(ops.filter((o) => o.process === 1).map((o) => `${o.type} ${o.f}`)).toEqual([
      'invoke acquire',
      'ok acquire',
      'invoke release',
    ]);
    // Client 0 holds its grant; client 1 began to release, so it no longer counts as a holder.
    expect(p.holders()).toEqual([0]);
    expect(p.grant(0)).toEqual({ token: 0 });
    expect(p.maxProcess()).toBe(1);
    await p.stop(2000);
    expect(p.lost).toEqual([]);
  });

  it('rejects ready() when a worker exits first or reports an error', async () => {
    await expect(pool(['ok', 'exit-before-ready']).pool.ready(5000)).rejects.toThrow(
      'client worker 1 exited before it was ready',
    );
    await expect(pool(['error']).pool.ready(5000)).rejects.toThrow('client 0 cannot connect');
  });

  it('reports a worker killed from outside as lost, and one stopped by the runner as not', async () => {
    const { pool: p } = pool(['ok', 'ok']);
    await p.ready(5000);
    p.go(0n);
    process.kill(p.pid(1) as number, 'SIGKILL');
    await until(() => p.lost.length === 1);
    expect(p.lost[0]).toMatchObject({ client: 1, code: null, signal: 'SIGKILL' });
    await p.stop(2000);
    expect(p.lost).toHaveLength(1);
  });

  it('kills the client program of a worker it kills, or one killed from outside', async () => {
    const { pool: p } = pool(['drives-program', 'drives-program']);
    await p.ready(5000);
    await until(() => p.pids(0).length === 2 && p.pids(1).length === 2);
    const program = (client: number) => -(p.pids(client)[0] as number);
    const [lost, killed] = [program(0), program(1)];
    expect(running(lost) && running(killed)).toBe(true);
    process.kill(p.pid(0) as number, 'SIGKILL');
    await until(() => !running(lost));
    expect(running(killed)).toBe(true);
    p.kill();
    await until(() => !running(killed));
  });

  it('catches the first client at a code point, stopped until resumed with its clock step', async () => {
    const { pool: p, ops } = pool(['never-pauses', 'ok']);
    await p.ready(5000);
    const caught = await p.catchAtPoint('after-votes', 5000, -700);
    expect(caught?.client).toBe(1);
    const worker = p.pid(1) as number;
    // SIGSTOP is sent when the catch resolves; the kernel stops the process soon after.
    await until(() => /^\d+ \(.*\) T/.test(readFileSync(`/proc/${worker}/stat`, 'utf8')));
    caught?.resume();
    await until(() => ops.some((op) => op.f === 'went-on'));
    expect(ops.find((op) => op.f === 'went-on')?.value).toEqual({ clockStepMs: -700 });
    await p.stop(300);
    expect(p.lost).toEqual([]);
  });

  it('catches no one when no client reaches the point in time', async () => {
    const { pool: p } = pool(['never-pauses']);
    await p.ready(5000);
    expect(await p.catchAtPoint('after-votes', 200)).toBeUndefined();
    await p.stop(300);
  });

  it('kills a worker that does not stop within the grace', async () => {
    const { pool: p } = pool(['ignores-stop']);
    await p.ready(5000);
    const pid = p.pid(0) as number;
    await p.stop(300);
    expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
    expect(p.lost).toEqual([]);
  });

  it('ends on the record the cycle of a worker it kills: a hold ends, an answer awaited is unknown', async () => {
    const { pool: p, ops } = pool(['ignores-stop', 'reads-forever']);
    await p.ready(5000);
    p.go(process.hrtime.bigint());
    await until(() => ops.length === 5);
    await p.stop(300);
    const ends = ops.slice(5);
    expect(ends.map((o) => `${o.process} ${o.type} ${o.f}`)).toEqual([
      '0 invoke release',
      '0 info release',
      '1 info read',
    ]);
    expect(ends[1]?.error).toMatch(/^harness: the client had not finished its cycle 300 ms after the stop/);
    expect(p.exitedOpen).toEqual([]);
  });

  it('ends the cycle of a lost worker, and says which exited on its own with its cycle open', async () => {
    const { pool: p, ops } = pool(['ok', 'ok', 'releases']);
    await p.ready(5000);
    p.go(process.hrtime.bigint());
    await until(() => ops.length === 7);
    process.kill(p.pid(1) as number, 'SIGKILL');
    await until(() => ops.some((o) => o.process === 1 && o.type === 'info'));
    expect(ops.filter((o) => o.process === 1 && o.type === 'info')[0]?.error).toBe(
      'harness: client worker lost (killed by SIGKILL)',
    );
    await p.stop(2000);
    // Client 0 exits at the stop still holding: its last operations never came.
    expect(p.exitedOpen).toEqual([0]);
    // Client 2 released before it closed its channel: everything it sent arrived.
    expect(ops.filter((o) => o.process === 2).map((o) => `${o.type} ${o.f}`)).toEqual([
      'invoke acquire',
      'ok acquire',
      'invoke release',
      'ok release',
    ]);
  });
});
