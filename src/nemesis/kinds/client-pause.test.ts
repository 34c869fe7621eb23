import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng.js';
import type { ClientFaultTarget } from '../context.js';
import { ClientClockStep } from './client-clock.js';
import { ClientPause } from './client-pause.js';

const IN_ACQUIRE_POINT = 'test:after-votes';

/** Clients of which the first (client 3) reaches the armed point at once, recording where and with what clock step. */
function clients(holders: number[]) {
  const armed: { client: number; where: string; clockStepMs?: number }[] = [];
  const pool: ClientFaultTarget = {
    holders: () => holders,
    pid: (c) => 1000 + c,
    pids: (c) => [1000 + c].filter((p): p is number => p !== undefined),
    process: (c) => c,
    grantedAt: () => undefined,
    count: () => 5,
    grant: () => undefined,
    catchAtPoint: async (where, _timeoutMs, clockStepMs) => {
      armed.push({ client: 3, where, clockStepMs });
      return { client: 3, pids: [1003], resume: () => {} };
    },
    crash: () => false,
  };
  return { pool, armed };
}

describe('client-clock', () => {
  const opts = { nemesisIntervalS: 1, ttlMs: 1000 };

  it('backward: stops a holder past the TTL, and takes most of the stop back from its clock', async () => {
    for (let seed = 1; seed <= 50; seed++) {
      const { pool, armed } = clients([3]);
      const nemesis = new ClientClockStep(pool, opts, IN_ACQUIRE_POINT, 'backward');
      const started = await nemesis.start(new Rng(seed));
      const value = started?.value as { client: number; ms: number; clockStepMs: number; at: string };
      expect(armed).toEqual([{ client: 3, where: IN_ACQUIRE_POINT, clockStepMs: value.clockStepMs }]);
      expect(value.ms).toBeGreaterThanOrEqual(1200);
      expect(value.ms).toBeLessThanOrEqual(2000);
      expect(-value.clockStepMs).toBeGreaterThanOrEqual(0.8 * value.ms - 1);
      expect(-value.clockStepMs).toBeLessThanOrEqual(value.ms);
      // What the elapsed check then sees: at most a fifth of the stop, less than the TTL.
      expect(value.ms + value.clockStepMs).toBeLessThan(opts.ttlMs);
    }
  });

  it('forward: a short stop and a step past the TTL, so the check refuses', async () => {
    const { pool } = clients([]);
    const started = await new ClientClockStep(pool, opts, IN_ACQUIRE_POINT, 'forward').start(new Rng(7));
    const value = started?.value as { ms: number; clockStepMs: number };
    expect(value.ms).toBeLessThanOrEqual(100);
    expect(value.clockStepMs).toBeGreaterThanOrEqual(opts.ttlMs);
  });

  it('records start and stop under its own kind', () => {
    expect(new ClientClockStep(clients([]).pool, opts, IN_ACQUIRE_POINT, 'backward').kind).toBe('client-clock');
  });
});

describe('client-pause with a fixed pause/TTL ratio (--pause-ttl)', () => {
  it('pauses exactly that many TTLs, and draws the same numbers as without it', async () => {
    const kill = process.kill;
    const signals: [number, string][] = [];
    process.kill = ((pid: number, signal: string) => {
      signals.push([pid, signal]);
      return true;
    }) as typeof process.kill;
    try {
      const fixed = await new ClientPause(clients([2]).pool, {
        nemesisIntervalS: 1,
        ttlMs: 1000,
        pauseTtl: 0.25,
      }).start(new Rng(3));
      expect(fixed?.durationMs).toBe(250);
      const drawn = await new ClientPause(clients([2]).pool, { nemesisIntervalS: 1, ttlMs: 1000 }).start(new Rng(3));
      expect(drawn?.durationMs).toBeGreaterThanOrEqual(800);
      expect(drawn?.durationMs).toBeLessThanOrEqual(2000);
      // The ratio replaces the draw, not the draws after it: the same holder is picked.
      expect((fixed?.value as { client?: number } | undefined)?.client).toBe(
        (drawn?.value as { client?: number } | undefined)?.client,
      );
      expect(signals).toEqual([
        [1002, 'SIGSTOP'],
        [1002, 'SIGSTOP'],
      ]);
    } finally {
      process.kill = kill;
    }
  });
});

describe('client-pause of a client that is gone', () => {
  it("records no pause when none of the holder's processes could be stopped", async () => {
    const gone: ClientFaultTarget = {
      ...clients([2]).pool,
      pid: () => 99_999_999, // beyond any pid_max: kill answers ESRCH, as for an exited worker
      pids: () => [99_999_999],
    };
    const nemesis = new ClientPause(gone, { nemesisIntervalS: 1, ttlMs: 1000 }, 0);
    expect(await nemesis.start(new Rng(1))).toBeNull();
  });
});

describe('client-pause record', () => {
  it("names the client program's pid and process group beside the worker's, when the client drives one", async () => {
    const kill = process.kill;
    process.kill = (() => true) as typeof process.kill;
    try {
      const opts = { nemesisIntervalS: 1, ttlMs: 1000 };
      const { pool } = clients([2]);
      const withProgram: ClientFaultTarget = { ...pool, program: (c) => ({ pid: 2001 + c, pgid: 2000 + c }) };
      const started = await new ClientPause(withProgram, opts).start(new Rng(3));
      expect(started?.value).toMatchObject({ client: 2, process: 2, pid: 1002, programPid: 2003, programGroup: 2002 });
      // A built-in client has no program: the record is as before.
      const builtIn = await new ClientPause({ ...pool, program: () => undefined }, opts).start(new Rng(3));
      expect(Object.keys(builtIn?.value as object)).toEqual(['client', 'process', 'pid', 'ms']);
    } finally {
      process.kill = kill;
    }
  });
});
