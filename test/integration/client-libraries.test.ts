/**
 * The shipped example clients (examples/clients/): real lock libraries behind the client
 * protocol, each preset run once with a fixed seed against real servers (each adapter
 * through client-check: test/acceptance/client-check-examples.test.ts). A preset's verdict is the library's, so each test asserts the
 * outcome the preset promises and the evidence for it (a stale token refused, a token
 * granted twice), not only the verdict.
 */
import { describe, expect, it } from 'vitest';
import { exampleClientsCheck } from '../../src/cli/doctor-clients.js';
import type { Op } from '../../src/history/op.js';
import { prepareRun } from '../../src/run-data/prepare.js';
import { run } from '../../src/runner/run.js';
import { resolveScenario } from '../../src/scenarios/index.js';
import { freshStore, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const store = freshStore();

/**
 * Runs preset `name` once, up to 12 s of workload, seed 3; an unfenced run stops at its
 * first overlap (--stop-on-violation), the evidence its test needs, and so does a fenced one
 * that must fail when asked (seed-fenced-lock's forked tokens).
 */
async function preset(name: string, fencing: boolean, stopOnViolation = !fencing) {
  const { config } = resolveScenario(name, { over: { timeLimitS: 12 } });
  return run(await prepareRun({ ...config, name: '', seed: 3, storeDir: store, fencing, stopOnViolation }), {
    latest: false,
  });
}

const checker = (r: Awaited<ReturnType<typeof preset>>, name: string) => r.results.find((c) => c.checker === name);
/** Writes the store refused for a stale token: a holder that outlived its lease, fenced off. */
const staleWrites = (history: Op[]) => history.filter((op) => op.f === 'write' && op.error === 'rejected: stale token');

describe.skipIf(skip)('the example lock libraries', () => {
  it('doctor: this machine runs every example client', () => {
    expect(exampleClientsCheck()).toEqual({
      name: 'example clients',
      status: 'ok',
      detail:
        'can run etcd3-lock, kazoo-lock, node-redlock, redis-py-lock, redis-semaphore, seed-fenced-lock, seed-fenced-lock-fixed',
    });
  });

  it.each(['node-redlock-gc-pause', 'redis-semaphore-gc-pause', 'redis-py-lock-gc-pause', 'etcd3-lock-gc-pause'])(
    '%s, unfenced: a paused holder outlives its lease, two hold at once',
    async (name) => {
      const r = await preset(name, false);
      expect(r.conditions).toEqual([]);
      expect(r.stoppedEarly?.why).toMatch(/two clients held the lock at once/);
      expect(checker(r, 'mutual-exclusion')?.valid).toBe(false);
      expect(r.valid).toBe(false);
    },
  );

  it('node-redlock-gc-pause, fenced: refused in one line (redlock has no token)', async () => {
    const r = await lockchaos(['run', '--scenario', 'node-redlock-gc-pause', '--fencing', 'on', '--store', store]);
    expect(r.stderr.trim()).toMatch(/^lockchaos run: --fencing on: Redlock has no fencing token/);
    expect(r.code).toBe(3);
  });

  it('kazoo-lock-gc-pause, fenced: the session expires under the holder, its znode sequence fences it off', async () => {
    const r = await preset('kazoo-lock-gc-pause', true);
    expect(r.conditions).toEqual([]);
    expect(staleWrites(r.history).length).toBeGreaterThan(0);
    expect(r.valid).toBe(true);
  });

  it("etcd3-lock-gc-pause, fenced: the lease expires under the holder, its key's create revision fences it off", async () => {
    const r = await preset('etcd3-lock-gc-pause', true);
    expect(r.conditions).toEqual([]);
    expect(staleWrites(r.history).length).toBeGreaterThan(0);
    expect(r.valid).toBe(true);
  });

  it('seed-fenced-lock, fenced: every client counts from 0, the fencing checker names tokens granted twice', async () => {
    const r = await preset('seed-fenced-lock', true, true);
    expect(r.stoppedEarly).toBeDefined();
    expect(checker(r, 'fencing')?.summary).toMatch(
      /\d+ tokens granted twice; .*token \d+ was granted twice: to process \d+/,
    );
    expect(r.valid).toBe(false);
  });

  it('seed-fenced-lock-fixed, fenced: a token from Redis INCR refuses the paused holder', async () => {
    const r = await preset('seed-fenced-lock-fixed', true);
    expect(r.conditions).toEqual([]);
    expect(staleWrites(r.history).length).toBeGreaterThan(0);
    expect(r.valid).toBe(true);
  });
});
