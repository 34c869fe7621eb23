/**
 * WorkerPool with real child processes, but fake workers (test/unit/fixtures/fake-worker.mjs)
 * that speak the protocol without a lock service: readiness, the ops and who holds the lock,
 * a worker lost from outside, and a stop that has to kill.
 */
import { describe, expect, it } from 'vitest';
import { fakePool as pool, running, until } from '../../test/unit/fake-workers.js';

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
    expect(p.clients.holders()).toEqual([0]);
    expect(p.clients.grant(0)).toEqual({ token: 0 });
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
    process.kill(p.clients.pid(1) as number, 'SIGKILL');
    await until(() => p.lost.length === 1);
    expect(p.lost[0]).toMatchObject({ client: 1, code: null, signal: 'SIGKILL' });
    await p.stop(2000);
    expect(p.lost).toHaveLength(1);
  });

  it('kills the client program of a worker it kills, or one killed from outside', async () => {
    const { pool: p } = pool(['drives-program', 'drives-program']);
    await p.ready(5000);
    await until(() => p.clients.pids(0).length === 2 && p.clients.pids(1).length === 2);
    const program = (client: number) => -(p.clients.pids(client)[0] as number);
    const [lost, killed] = [program(0), program(1)];
    expect(running(lost) && running(killed)).toBe(true);
    process.kill(p.clients.pid(0) as number, 'SIGKILL');
    await until(() => !running(lost));
    expect(running(killed)).toBe(true);
    p.kill();
    await until(() => !running(killed));
  });

  it('kills a worker that does not stop within the grace', async () => {
    const { pool: p } = pool(['ignores-stop']);
    await p.ready(5000);
    const pid = p.clients.pid(0) as number;
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
    process.kill(p.clients.pid(1) as number, 'SIGKILL');
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
