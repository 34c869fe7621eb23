/**
 * A point's violating try, shrunk: the existing shrink (src/shrink) run on the try's folder
 * with a few runs of budget, one trial each (a try is a single violating run, and the
 * exploration's budget is for tries): the smallest schedule that still broke the lock, and
 * the command that replays it.
 */
import { describeCandidate, reproduceCommand, type ShrinkOptions, shrinkRun } from '../shrink/shrink.js';
import { errorMessage } from '../util/errors.js';
import { onlyTheLeaseArgument } from './lease-argument.js';

/** What the shrink of a violating try found, for its table row and explore.json. */
export interface ShrunkTry {
  /** Shrink runs made (each a real run). */
  runs: number;
  /** Whether a smaller schedule, time limit or client count still broke the lock. */
  smaller: boolean;
  /** The smallest reproducer in words ("1 fault (wire at 2.0 s for 0.80 s), time limit 4 s, 2 clients"). */
  reproducer?: string;
  /** `lockchaos run --schedule <its minimal-schedule.json>`: the smallest schedule, replayed. */
  replay?: string;
  /** The shrink's folder (<try>/shrink: candidates, minimal run, page). */
  dir?: string;
  /** Why the shrink did not run, or ended in an error. */
  error?: string;
}

/** The default shrink runs per broken point: a few, so that the exploration's budget stays its tries'. */
export const DEFAULT_SHRINK_RUNS = 4;

export async function shrinkTry(
  runDir: string,
  maxRuns: number,
  o: { signal?: AbortSignal; log?: (line: string) => void; fencing?: boolean } = {},
): Promise<ShrunkTry> {
  try {
    // Unfenced, a smaller schedule that broke the lock only by the lease argument does not
    // reproduce the library's bug: it is not kept (the try itself was counted the same way).
    const notOnlyTheLease: ShrinkOptions['counts'] = (run) => !onlyTheLeaseArgument(run.results, run.history);
    const r = await shrinkRun(runDir, {
      trials: 1,
      minHits: 1,
      maxRuns,
      signal: o.signal,
      log: o.log,
      ...(o.fencing ? {} : { counts: notOnlyTheLease }),
    });
    return {
      runs: r.runs,
      smaller: r.smaller,
      reproducer: describeCandidate(r.best),
      replay: reproduceCommand(r.minimalSchedule),
      dir: r.out,
    };
  } catch (err) {
    return { runs: 0, smaller: false, error: errorMessage(err).split('\n')[0] };
  }
}
