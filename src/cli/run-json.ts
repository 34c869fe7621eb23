/**
 * What `run --json` prints: the run's result as one stamped object, for scripts.
 */
import { join } from 'node:path';
import { verdictName } from '../../checkers/result.js';
import type { ReportedRun } from '../reported-run/reported-run.js';
import { EXIT_INTERRUPTED } from '../run-data/conditions.js';
import { RUN_FILES } from '../run-data/run-folder.js';
import { stamped } from '../version.js';

/**
 * `run --json`: the result as one object, for scripts: the verdict and exit code, the run
 * folder and its files, the verdict in one sentence (report.html's first line, when it
 * was written), each checker's verdict in one line (their details are in results.json),
 * how the run did not run as configured, and the configuration.
 */
export function runJson(r: ReportedRun, exitCode: number) {
  return stamped({
    verdict: verdictName(r.valid),
    exitCode,
    ...(r.headline ? { headline: r.headline } : {}),
    seed: r.config.seed,
    dir: r.dir,
    files: Object.fromEntries(
      Object.values(RUN_FILES)
        .filter((f) => f !== RUN_FILES.nodes)
        .map((f) => [f, join(r.dir, f)]),
    ),
    conditions: r.conditions,
    ...(r.stoppedEarly ? { stoppedEarly: r.stoppedEarly } : {}),
    timings: r.timings,
    checkers: r.results.map(({ checker, valid, counts, summary }) => ({ checker, valid, counts, summary })),
    config: r.config,
  });
}

/** A run stopped before anything was recorded to check. */
export const runJsonInterrupted = () => stamped({ verdict: 'interrupted', exitCode: EXIT_INTERRUPTED });
