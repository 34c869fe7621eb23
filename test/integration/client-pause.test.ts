import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { type NemesisClients, signalAll } from '../../src/nemesis/context.js';
import { ClientPause } from '../../src/nemesis/kinds/client-pause.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { Rng } from '../../src/util/rng.js';

// A real process that reports a counter every 10 ms, standing in for a client worker.
const ticker = `let n = 0; setInterval(() => process.send(++n), 10);`;

describe('client-pause nemesis', () => {
  /**
   * The ticker as the one client; `holding`: it reaches its hold at once, and is stopped
   * there as the worker pool stops a client at a code point (SIGSTOP, SIGCONT to resume).
   */
  const clients = (holding: boolean): NemesisClients => ({
    holders: () => [],
    pid: () => child.pid,
    pids: () => [child.pid].filter((p): p is number => p !== undefined),
    process: () => 0,
    grantedAt: () => undefined,
    count: () => 1,
    grant: () => undefined,
    catchAtPoint: async (_where, timeoutMs) => {
      if (!holding) return sleep(timeoutMs).then(() => undefined);
      const pids = signalAll([child.pid as number], 'SIGSTOP');
      return { client: 0, pids, resume: () => void signalAll(pids, 'SIGCONT') };
    },
    crash: () => false,
  });
  const child = spawn(process.execPath, ['-e', ticker], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  let last = 0;
  child.on('message', (n) => (last = n as number));
  afterAll(() => child.kill('SIGKILL'));

  it('stops a holding client for real and resumes it', async () => {
    // On the ticker's state, not on delays: a busy machine starts a process late.
    await until(() => last > 0);
    const nemesis = new ClientPause(clients(true), { nemesisIntervalS: 1, ttlMs: 500 });
    const started = await nemesis.start(new Rng(1));
    expect(started?.durationMs).toBeGreaterThanOrEqual(400);
    expect(started?.durationMs).toBeLessThanOrEqual(1000);
    // The messages already in flight arrive; then nothing while it is stopped.
    let seen = last;
    await until(async () => {
      await sleep(100);
      const settled = last === seen;
      seen = last;
      return settled;
    });
    const during = last;
    await sleep(300);
    expect(last).toBe(during); // no progress while stopped
    await nemesis.stop();
    await until(() => last > during + 5);
    expect(last).toBeGreaterThan(during + 5);
  });

  it('skips when no client begins a hold', async () => {
    const nemesis = new ClientPause(clients(false), { nemesisIntervalS: 1, ttlMs: 50 }, 50);
    expect(await nemesis.start(new Rng(1))).toBeNull();
  });

  it('heals every paused client', async () => {
    const nemesis = new ClientPause(clients(true), { nemesisIntervalS: 1, ttlMs: 500 });
    await nemesis.start(new Rng(2));
    await nemesis.healAll();
    const before = last;
    await sleep(200);
    expect(last).toBeGreaterThan(before);
  });
});

/** Polls `done` until it holds or 10 s pass (a bound, not a timing the test relies on). */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline && !(await done()); ) await sleep(20);
}
