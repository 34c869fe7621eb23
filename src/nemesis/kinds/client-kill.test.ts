import { describe, expect, it } from 'vitest';
import { Rng } from '../../util/rng.js';
import type { CaughtAtPoint, NemesisClients } from '../context.js';
import { ClientKill } from './client-kill.js';

/** Three clients; client 1 holds; crash() records whom it was asked to kill. */
function clients(crashed: number[], caught?: CaughtAtPoint): NemesisClients {
  return {
    holders: () => [1],
    pid: (c) => 100 + c,
    pids: (c) => [-(200 + c), 100 + c],
    process: (c) => c + 3,
    grantedAt: () => undefined,
    count: () => 3,
    grant: () => undefined,
    catchAtPoint: async () => caught,
    crash: (c) => {
      crashed.push(c);
      return true;
    },
  };
}

const timing = { nemesisIntervalS: 1, ttlMs: 1000 };

describe('client-kill', () => {
  it('kills the next holder as its hold begins, whole, and records whom: its process, worker and program group', async () => {
    const crashed: number[] = [];
    const armed: string[] = [];
    const caught = { client: 1, pids: [-201, 101], resume: () => {} };
    const pool: NemesisClients = {
      ...clients(crashed),
      catchAtPoint: async (where) => {
        armed.push(where);
        return caught;
      },
    };
    const started = await new ClientKill(pool, timing).start(new Rng(1));
    expect(armed).toEqual(['in-hold']);
    expect(crashed).toEqual([1]);
    expect(started?.value).toEqual({ client: 1, process: 4, pid: 101, programGroup: 201, at: 'in-hold' });
  });

  it('kills the client caught at a code point, where it stands (never resumed)', async () => {
    const crashed: number[] = [];
    let resumed = false;
    const caught = { client: 2, pids: [-202, 102], resume: () => (resumed = true) };
    const started = await new ClientKill(clients(crashed, caught), timing, 'before-release').start(new Rng(1));
    expect(crashed).toEqual([2]);
    expect(resumed).toBe(false);
    expect(started?.value).toMatchObject({ client: 2, process: 5, at: 'before-release' });
  });

  it('finds nothing to fault when no client reaches the point', async () => {
    const crashed: number[] = [];
    expect(await new ClientKill(clients(crashed), timing, 'in-extend').start(new Rng(1))).toBeNull();
    expect(crashed).toEqual([]);
  });
});
