/** mutex: acquire, hold, release. Checked for mutual exclusion of the holders' beliefs. */
import { evidenceChecker } from '../checkers/evidence.js';
import { lockLinearizableChecker } from '../checkers/linearizable/lock-and-store.js';
import { mutualExclusionChecker } from '../checkers/mutual-exclusion.js';
import { perfChecker } from '../checkers/perf.js';
import { sleep } from '../src/util/monotonic-clock.js';
import { recordAcquire, recordRelease, think } from './cycle.js';
import type { Workload } from './workload.js';

export const mutexWorkload: Workload = {
  name: 'mutex',
  description: 'acquire, hold, release; checks that no two clients believed they held the lock at once',
  usesStore: false,
  checkers: [mutualExclusionChecker, lockLinearizableChecker, evidenceChecker({ writes: false }), perfChecker],
  async client(ctx) {
    while (!ctx.stop.aborted) {
      const grant = await recordAcquire(ctx);
      if (grant) {
        await ctx.point?.('in-hold');
        await sleep(ctx.opts.holdMs);
        await recordRelease(ctx, grant);
      }
      await think(ctx, grant !== null);
    }
  },
};
