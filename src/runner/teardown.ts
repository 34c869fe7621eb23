/**
 * How a run's resources end: in one order, whatever order they began in and whichever of
 * them began at all. Their lives overlap rather than nest: the workers are forked before
 * the cluster starts (their imports load meanwhile), yet end before the proxies and nodes
 * they talk to; a campaign's workload slot, taken last, is given back once the faults heal.
 */

import { restoreRunWarps } from '../cluster/clock-warp.js';
import { removeRunCgroups } from '../cluster/reclaim.js';
import { removeResources } from '../cluster/remove-resources.js';

const ORDER = [
  'progress',
  'heal',
  // Healed: every clock the run warped is true again (the faults restore their own; this
  // also restores one whose fault's stop never ran).
  'clocks',
  // Healed: the next cell's workload may begin while this one tears down and checks.
  'slot',
  'workers',
  'cgroups',
  // The clients are gone: the proxies and the nodes they talked to may go.
  'faults',
  'target',
  'containers',
] as const;
export type RunEnd = (typeof ORDER)[number];

/** Where a phase hands the end of what it began: all a phase uses of the teardown. */
export type RunEnds = Pick<Teardown, 'on'>;

export class Teardown {
  private readonly ends = new Map<RunEnd, () => unknown>();

  /**
   * What carries the run's id goes whatever began: its containers and networks, also a
   * cluster's that never finished starting, and its client programs' cgroups.
   */
  constructor(runId: string, log: (line: string) => void) {
    // What the client programs started (a daemon that left their process group) ends with
    // the run, also when a worker was killed before it could close its program.
    this.on('cgroups', () =>
      removeRunCgroups(runId).catch((err) => log(`client program cgroups of run ${runId} not removed: ${String(err)}`)),
    );
    this.on('clocks', async () => {
      const { problems } = await restoreRunWarps(runId);
      for (const problem of problems) log(`a warped clock of run ${runId} is not restored: ${problem}`);
    });
    this.on('containers', () =>
      removeResources({ runId }).catch((err) => log(`cleanup of run ${runId} failed: ${String(err)}`)),
    );
  }

  /** How a resource that has begun ends, in its place in the order. */
  on(end: RunEnd, how: () => unknown): void {
    this.ends.set(end, how);
  }

  /** Each end in order; one that throws leaves those after it undone, as a finally block would. */
  async run(): Promise<void> {
    for (const end of ORDER) await this.ends.get(end)?.();
  }
}
