/**
 * A client worker stopped by something other than the nemesis (here the test, as a loaded
 * machine would by not scheduling it): the worker sees the gap in its own timers, and the
 * run says the machine stalled its clients, with no fault on them, rather than nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/run-data/config.js';
import { prepareRun } from '../../src/run-data/prepare.js';
import { run } from '../../src/runner/run.js';
import { procStatFields } from '../../src/util/proc-stat.js';
import { freshStore, requireEngine, runIdIn, runLeftovers } from './support.js';

const skip = await requireEngine();
const store = freshStore();

/** This process's client workers (forked children running the worker module), from /proc. */
function workerPids(): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((pid) => {
      try {
        return (
          procStatFields(Number(pid))?.ppid === process.pid &&
          readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('worker.js')
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.skipIf(skip)('a worker the machine stalls', () => {
  it('is told in the run log as the machine’s stall, with no fault on it', async () => {
    const lines: string[] = [];
    let stalled: Promise<void> = Promise.resolve();
    const log = (line: string) => {
      lines.push(line);
      // The workload began: every worker stopped 800 ms, as a machine too loaded to run them.
      if (line.startsWith('running ')) {
        stalled = (async () => {
          await new Promise((r) => setTimeout(r, 1000));
          const pids = workerPids();
          for (const pid of pids) process.kill(pid, 'SIGSTOP');
          await new Promise((r) => setTimeout(r, 800));
          for (const pid of pids) process.kill(pid, 'SIGCONT');
        })();
      }
    };
    const resolved = await prepareRun({
      ...DEFAULTS,
      backend: 'redis',
      workload: 'mutex',
      name: '',
      seed: 5,
      storeDir: store,
      timeLimitS: 4,
      concurrency: 2,
      fencing: false,
    });
    const r = await run(resolved, { latest: false, log });
    await stalled;
    const said = lines.find((l) => l.startsWith('the machine stalled client workers'));
    expect(said).toMatch(/^the machine stalled client workers (once|\d+ times) with no fault on them \(longest \d+ ms/);
    // 800 ms stopped: the longest gap a worker saw is about that, not a tick's.
    expect(Number(/longest (\d+) ms/.exec(said ?? '')?.[1])).toBeGreaterThanOrEqual(700);
    expect(r.conditions.map((c) => c.kind)).not.toContain('worker-lost');
    // This run's own: other runs on the same engine (another job's, another test's) are not its leftovers.
    const runId = runIdIn(lines.join('\n'));
    expect(runId).toMatch(/^[0-9a-f]{8}$/);
    expect(await runLeftovers(runId as string)).toEqual([]);
  });
});
