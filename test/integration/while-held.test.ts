/**
 * kill-node:one:while-held, as the redis-restart-amnesia preset uses it: the node goes down
 * only while a client holds the lock, that holder is really stopped until the node is back
 * and another client holds the forgotten lock, so the overlap does not depend on how fast
 * this machine restarts a container (on a loaded runner, 2.6 s outlived a 5 s hold's rest).
 */
import { describe, expect, it } from 'vitest';
import { freshStore, requireEngine, runAndRead } from './support.js';

const skip = await requireEngine();
const store = freshStore();

describe.skipIf(skip)('a node fault aimed at the lock state', () => {
  it('redis-restart-amnesia: every kill catches a holder, and each one is overtaken', async () => {
    const r = await runAndRead(store, [
      ...['--scenario', 'redis-restart-amnesia', '--fencing', 'off'],
      ...['--time-limit', '12', '--seed', '21'],
    ]);
    const starts = r.history.filter((o) => o.f === 'start-kill-node' && o.type === 'ok');
    const stops = r.history.filter((o) => o.f === 'stop-kill-node' && o.type === 'ok');
    expect(starts.length).toBeGreaterThan(0);
    for (const s of starts) expect(s.value).toMatchObject({ holder: { client: expect.any(Number) }, loseData: true });
    for (const s of stops) expect(s.value).toMatchObject({ holder: { anotherHeld: true } });
    expect(r.stdout).toMatch(/mutual-exclusion\s+INVALID .*faults active: kill-node/);
    expect(r.stdout).toMatch(/expects invalid: as expected/);
    expect(r.code).toBe(1);
    expect(r.left).toEqual([]);
  });
});
