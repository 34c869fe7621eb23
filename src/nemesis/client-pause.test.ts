import { describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';
import { ClientClockStep, type PausableClients } from './client-pause.js';

const IN_ACQUIRE_POINT = 'test:after-votes';

/** Clients that stop at once when armed, recording where and with what clock step. */
function clients(holders: number[]) {
  const armed: { client: number; where: string; clockStepMs?: number }[] = [];
  const pool: PausableClients = {
    holders: () => holders,
    pid: (c) => 1000 + c,
    process: (c) => c,
    count: () => 5,
    grant: () => undefined,
    armPause: async (client, where, _timeoutMs, clockStepMs) => {
      armed.push({ client, where, clockStepMs });
      return true;
    },
  };
  return { pool, armed };
}

describe('client-clock', () => {
  const opts = { intervalS: 1, ttlMs: 1000 };

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
