import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng.js';
import type { NemesisClients } from '../context.js';
import { ClientClockStep } from './client-clock.js';
import { ClientPause, HOLDER_POINT } from './client-pause.js';

const IN_ACQUIRE_POINT = 'test:after-votes';

/** Clients of which the first (client 3) reaches the armed point at once, recording where and with what clock step. */
function clients(holders: number[]) {
  const armed: { client: number; where: string; clockStepMs?: number }[] = [];
  const pool: NemesisClients = {
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

describe('client-pause of a holder', () => {
  const opts = { nemesisIntervalS: 1, ttlMs: 1000 };

  it('stops the next client to begin its hold, at in-hold, for the drawn length, and lets it go at the stop', async () => {
    const { pool, armed } = clients([]);
    let resumed = 0;
    const caught: NemesisClients = {
      ...pool,
      catchAtPoint: async (where) => {
        armed.push({ client: 3, where });
        return { client: 3, pids: [1003], resume: () => resumed++ };
      },
    };
    const nemesis = new ClientPause(caught, opts);
    const started = await nemesis.start(new Rng(3));
    expect(armed).toEqual([{ client: 3, where: HOLDER_POINT }]);
    expect(HOLDER_POINT).toBe('in-hold');
    expect(started?.durationMs).toBeGreaterThanOrEqual(800);
    expect(started?.durationMs).toBeLessThanOrEqual(2000);
    expect(resumed).toBe(0);
    expect(await nemesis.stop()).toEqual({ client: 3, pid: 1003 });
    expect(resumed).toBe(1);
    expect(await nemesis.stop()).toBeNull();
  });

  it('with --pause-ttl pauses exactly that many TTLs, and draws the same numbers as without it', async () => {
    const fixedRng = new Rng(3);
    const fixed = await new ClientPause(clients([]).pool, { ...opts, pauseTtl: 0.25 }).start(fixedRng);
    expect(fixed?.durationMs).toBe(250);
    const drawnRng = new Rng(3);
    const drawn = await new ClientPause(clients([]).pool, opts).start(drawnRng);
    expect(drawn?.durationMs).toBeGreaterThanOrEqual(800);
    expect(drawn?.durationMs).toBeLessThanOrEqual(2000);
    // The ratio replaces the draw, not the draws after it: the schedule goes on the same.
    expect(fixedRng.next()).toBe(drawnRng.next());
  });

  it('draws as many numbers as when it picked among the holders, so that seeds keep their schedules', async () => {
    const rng = new Rng(11);
    const twin = new Rng(11);
    await new ClientPause(clients([]).pool, opts).start(rng);
    twin.uniform(0.8, 2.0);
    twin.next();
    expect(rng.next()).toBe(twin.next());
  });

  it('records no pause, and lets the client go, when none of its processes could be stopped', async () => {
    let resumed = 0;
    const gone: NemesisClients = {
      ...clients([]).pool,
      // Stopped nothing: kill answered ESRCH for each, as for an exited worker.
      catchAtPoint: async () => ({ client: 2, pids: [], resume: () => resumed++ }),
    };
    expect(await new ClientPause(gone, opts, 0).start(new Rng(1))).toBeNull();
    expect(resumed).toBe(1);
  });

  it('records nothing when no client was granted the lock in time', async () => {
    const none: NemesisClients = { ...clients([]).pool, catchAtPoint: async () => undefined };
    expect(await new ClientPause(none, opts, 0).start(new Rng(1))).toBeNull();
  });
});

describe('client-pause record', () => {
  it("names the client program's pid and process group beside the worker's, when the client drives one", async () => {
    const opts = { nemesisIntervalS: 1, ttlMs: 1000 };
    const { pool } = clients([]);
    const withProgram: NemesisClients = { ...pool, program: (c) => ({ pid: 2001 + c, pgid: 2000 + c }) };
    const started = await new ClientPause(withProgram, opts).start(new Rng(3));
    expect(started?.value).toMatchObject({
      client: 3,
      process: 3,
      pid: 1003,
      programPid: 2004,
      programGroup: 2003,
      at: 'in-hold',
    });
    // A built-in client has no program: no program in the record.
    const builtIn = await new ClientPause({ ...pool, program: () => undefined }, opts).start(new Rng(3));
    expect(Object.keys(builtIn?.value as object)).toEqual(['client', 'process', 'pid', 'at', 'ms']);
  });
});

describe('client-pause at a code point, of a program in a cgroup', () => {
  it("names the worker's pid, not the first member of the program's cgroup stopped with it", async () => {
    // As the worker pool stops a client: the program's group, its cgroup's members, the worker last.
    const pool: NemesisClients = {
      ...clients([]).pool,
      catchAtPoint: async () => ({ client: 3, pids: [-2003, 2003, 2004, 1003], resume: () => {} }),
    };
    const started = await new ClientPause(pool, { nemesisIntervalS: 1, ttlMs: 1000 }, 0, undefined, 'in-extend').start(
      new Rng(1),
    );
    expect(started?.value).toMatchObject({ client: 3, pid: 1003, programGroup: 2003, at: 'in-extend' });
  });
});
