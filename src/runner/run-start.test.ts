/**
 * A phase of the start given only what it uses: a campaign's workload slot taken, given
 * back once however often it is given back, and a Ctrl-C while waiting for it written to
 * the run folder as the run's interruption.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Cluster } from '../cluster/cluster.js';
import { RunInterrupted } from '../run-data/conditions.js';
import { DEFAULTS, type TestConfig } from '../run-data/config.js';
import { readResults, runFile } from '../run-data/run-folder.js';
import { RunClock } from '../run-data/run-phases.js';
import { takeWorkloadSlot } from './run-start.js';
import { StartInterruption } from './start-interruption.js';
import type { RunEnd } from './teardown.js';

const config: TestConfig = { ...DEFAULTS, name: 't', seed: 1 };

function phase(signal?: AbortSignal) {
  const dir = mkdtempSync(join(tmpdir(), 'lockchaos-start-'));
  const clock = new RunClock();
  const ends = new Map<RunEnd, () => unknown>();
  const lines: string[] = [];
  let claimed = 0;
  const cluster = { claimCpu: async () => void claimed++ } as unknown as Cluster;
  return {
    dir,
    ends,
    lines,
    claimed: () => claimed,
    run: { cluster, log: (line: string) => lines.push(line), clock },
    start: new StartInterruption(dir, config, clock, signal),
    teardown: { on: (end: RunEnd, how: () => unknown) => void ends.set(end, how) },
  };
}

describe('takeWorkloadSlot', () => {
  it('takes nothing, and hands the teardown nothing, for a run that is no campaign cell', async () => {
    const p = phase();
    const back = await takeWorkloadSlot(undefined, p.run, p.start, p.teardown);
    back();
    expect([p.ends.size, p.lines.length, p.claimed()]).toEqual([0, 0, 0]);
  });

  it('waits for the slot, claims the CPU, and gives the slot back once', async () => {
    const p = phase();
    let givenBack = 0;
    const back = await takeWorkloadSlot(async () => () => void givenBack++, p.run, p.start, p.teardown);
    expect(p.lines).toEqual(['waiting for a workload slot (other cells run theirs)...']);
    expect(p.claimed()).toBe(1);
    back();
    await p.ends.get('slot')?.();
    expect(givenBack).toBe(1);
    expect(p.run.clock.timings().phases).toHaveProperty('queued');
  });

  it('writes a Ctrl-C while waiting for the slot to the run folder as its interruption', async () => {
    const ctrlC = new AbortController();
    const p = phase(ctrlC.signal);
    const slot = (signal: AbortSignal | undefined) =>
      new Promise<() => void>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    const taken = takeWorkloadSlot(slot, p.run, p.start, p.teardown);
    ctrlC.abort(new Error('SIGINT'));
    await expect(taken).rejects.toBeInstanceOf(RunInterrupted);
    const results = readResults(runFile(p.dir, 'results'));
    expect(results.valid).toBe('unknown');
    expect(results.conditions.map((c) => c.kind)).toEqual(['interrupted']);
    expect(p.ends.size).toBe(0);
  });
});
