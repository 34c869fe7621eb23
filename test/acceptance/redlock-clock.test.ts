/**
 * Redlock's elapsed-time check, on 5 real masters: a client stopped after winning the
 * votes must be refused (client-pause:in-acquire), unless its own clock stepped back
 * while it was stopped (client-clock:backward), when it holds a lock whose keys expired.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireEngine, runAndRead } from '../integration/support.js';

const skip = await requireEngine();
const store = mkdtempSync(join(tmpdir(), 'lockchaos-redlock-clock-'));
const args = (nemesis: string) => [
  ...['--backend', 'redlock', '--workload', 'lock-set', '--fencing', 'off', '--nemesis', nemesis],
  ...['--ttl', '1000', '--hold', '100', '--nemesis-interval', '1', '--time-limit', '10', '--seed', '2'],
];

describe.skipIf(skip)("Redlock's elapsed-time check on real masters", () => {
  it('refuses the grant of a client stopped for longer than the TTL after its votes', async () => {
    const r = await runAndRead(store, args('client-pause:in-acquire'));
    const stops = r.history.filter((op) => op.f === 'start-client-pause' && op.type === 'ok');
    expect(stops.length).toBeGreaterThan(0);
    expect(r.stdout).toMatch(/mutual-exclusion\s+valid/);
    expect(r.code).toBe(0);
    expect(r.left).toEqual([]);
  });

  it("passes it when the client's clock stepped back while it was stopped: two holders", async () => {
    const r = await runAndRead(store, args('client-clock:backward'));
    const steps = r.history.filter((op) => op.f === 'start-client-clock' && op.type === 'ok');
    expect(steps.length).toBeGreaterThan(0);
    for (const op of steps) {
      const { ms, clockStepMs } = op.value as { ms: number; clockStepMs: number };
      expect(ms).toBeGreaterThan(1000); // stopped past the TTL...
      expect(-clockStepMs).toBeGreaterThanOrEqual(0.8 * ms); // ...and the clock took most of it back
    }
    expect(r.stdout).toMatch(/mutual-exclusion\s+INVALID\s+\d+ overlapping holds.*faults active: client-clock/);
    expect(r.code).toBe(1);
    expect(r.left).toEqual([]);
  });
});
