/**
 * KeptHolder with a real process standing in for the holder's worker: it is really stopped
 * (its state in /proc is T) while kept, and resumed once another client holds the lock, or
 * when its lease share is spent, whichever comes first.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sleep } from '../util/monotonic-clock.js';
import { procStatFields } from '../util/proc-stat.js';
import { Rng } from '../util/rng.js';
import type { NemesisClients } from './context.js';
import { KeptHolder, LEASE_SHARE } from './kept-holder.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** The process state letter from /proc (R, S, T ...). */
const state = (pid: number) => procStatFields(pid)?.state;

/** Clients 0..2; `holders` is read at each call, so a test can change who holds. */
function clients(holders: number[], grantedAt: number) {
  const child = spawn('sleep', ['60']);
  children.push(child);
  const target: NemesisClients = {
    holders: () => holders,
    pid: () => child.pid,
    pids: () => [child.pid].filter((p): p is number => p !== undefined),
    process: (c) => 10 + c,
    grantedAt: () => grantedAt,
    count: () => 3,
    grant: () => ({}),
    catchAtPoint: async () => undefined,
    crash: () => false,
  };
  return { target, pid: child.pid as number };
}

describe('KeptHolder', () => {
  it('stops the holder, and resumes it once another client holds the lock', async () => {
    const holders = [1];
    const { target, pid } = clients(holders, Date.now());
    const kept = new KeptHolder(target, 10_000);
    expect(await kept.keep(new Rng(1))).toEqual({ client: 1, process: 11 });
    await sleep(20);
    expect(state(pid)).toBe('T');
    const released = kept.release();
    await sleep(100);
    expect(state(pid)).toBe('T'); // nobody else holds yet: still kept
    holders.push(2);
    expect(await released).toMatchObject({ client: 1, anotherHeld: true });
    expect(state(pid)).not.toBe('T');
  });

  it('lets it go as soon as another client holds, the fault still in effect (no release asked yet)', async () => {
    const holders = [1];
    const { target, pid } = clients(holders, Date.now());
    const kept = new KeptHolder(target, 10_000);
    await kept.keep(new Rng(1));
    await sleep(20);
    expect(state(pid)).toBe('T');
    holders.push(2);
    await sleep(100);
    expect(state(pid)).not.toBe('T');
    expect(await kept.release()).toMatchObject({ client: 1, anotherHeld: true });
  });

  it('never keeps it past its lease share, counted from its grant', async () => {
    // Fake clocks: the lease share is counted on Date.now and waited out on setTimeout, so
    // the release is placed exactly, whatever the machine's load.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const ttlMs = 500;
      const { target, pid } = clients([0], Date.now() - 200);
      const kept = new KeptHolder(target, ttlMs);
      await kept.keep(new Rng(1));
      let settled = false;
      const released = kept.release().finally(() => {
        settled = true;
      });
      // 0.8 of 500 ms from a grant 200 ms ago: 200 ms more, and not before.
      const left = LEASE_SHARE * ttlMs - 200;
      await vi.advanceTimersByTimeAsync(left - 10);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(10);
      expect(settled).toBe(true);
      expect(await released).toEqual({ client: 0, anotherHeld: false, keptMs: left });
      expect(state(pid)).not.toBe('T');
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets it go at its lease share while the fault is still in effect, and says so at the stop', async () => {
    // A node out longer than the lease (a slow restart): the holder goes on at 0.8 of its
    // lease, not at the stop; the stop's record gives how long it was really kept.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const ttlMs = 1000;
      const { target } = clients([0], Date.now());
      let resumed = 0;
      target.catchAtPoint = async () => ({ client: 0, pids: [], resume: () => resumed++ });
      const kept = new KeptHolder(target, ttlMs, 5000, 'after-grant');
      await kept.keep(new Rng(1));
      await vi.advanceTimersByTimeAsync(LEASE_SHARE * ttlMs - 10);
      expect(resumed).toBe(0);
      await vi.advanceTimersByTimeAsync(20);
      expect(resumed).toBe(1);
      // The node comes back 3 s later: the record says 0.8 s, and nobody else held.
      await vi.advanceTimersByTimeAsync(3000);
      expect(await kept.release()).toEqual({ client: 0, anotherHeld: false, keptMs: LEASE_SHARE * ttlMs });
      expect(resumed).toBe(1); // not resumed twice
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps nobody when nobody holds, and resume() is safe to repeat', async () => {
    const { target } = clients([], Date.now());
    const kept = new KeptHolder(target, 1000, 50);
    // Waits a while for a holder, then gives up.
    expect(await kept.keep(new Rng(1))).toBeUndefined();
    expect(await kept.release()).toBeUndefined();
    kept.resume();
  });
});

describe('KeptHolder at a code point', () => {
  it('keeps the first client at the point, holding or not, and lets it go on from there', async () => {
    const holders: number[] = [];
    const { target } = clients(holders, Date.now());
    const asked: string[] = [];
    let resumed = 0;
    target.catchAtPoint = async (where) => {
      asked.push(where);
      return { client: 2, pids: [], resume: () => resumed++ };
    };
    const kept = new KeptHolder(target, 10_000, 5000, 'before-release');
    expect(await kept.keep(new Rng(1))).toEqual({ client: 2, process: 12, at: 'before-release' });
    expect(asked).toEqual(['before-release']);
    const released = kept.release();
    holders.push(0);
    expect(await released).toMatchObject({ client: 2, anotherHeld: true });
    expect(resumed).toBe(1);
    // No client came there: nothing kept, the fault skipped.
    target.catchAtPoint = async () => undefined;
    expect(await new KeptHolder(target, 10_000, 5000, 'in-extend').keep(new Rng(1))).toBeUndefined();
  });
});
