/** `lockchaos shrink RUN_DIR`: the smallest fault schedule that still breaks the lock. */
import { describeCandidate, reproduceCommand, SHRINK_DEFAULTS, shrinkRun } from '../shrink/shrink.js';
import { UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { parseCommandArgs } from './args.js';
import { onInterrupt } from './interrupt.js';

const HELP = `Usage: lockchaos shrink RUN_DIR [options]

From an invalid run, searches for the smallest fault schedule that still breaks the lock,
as property-based testing shrinks a failing input: drop faults (delta debugging), then
move the rest to the start and shorten the time limit and them, then lower the number of
clients. Each candidate is run --trials times (fresh seeds, --stop-on-violation) and kept
only when invalid in at least --min-hits of them, so a fluke is not taken; at the end the
best must be invalid in every one of --trials fresh runs, or the one kept before it is.

Writes RUN_DIR/shrink/: candidates.jsonl (every candidate tried, with its runs),
minimal-schedule.json (give it to lockchaos run --schedule), minimal/ (the smallest
failing run's folder and report), shrink.json and shrink.html (original and minimal side
by side). Runs go to RUN_DIR/shrink/runs/.

Options:
  --trials K         fresh runs per candidate (default ${SHRINK_DEFAULTS.trials})
  --min-hits M       invalid runs a candidate needs of its trials (default ${SHRINK_DEFAULTS.minHits})
  --max-runs N       runs the whole search may make (default ${SHRINK_DEFAULTS.maxRuns})
  --time-limit S     seconds the whole search may take (default ${SHRINK_DEFAULTS.timeLimitS});
                     at a budget it ends with the best found so far
  -h, --help         this help

Exit codes: 0 a smaller reproducer was found, 1 the original is already minimal, 3 bad
input (a run that is valid or unknown, cut short, or not a run folder), 130 interrupted
(the best found so far is written).`;

const OPTIONS = {
  trials: { type: 'string' },
  'min-hits': { type: 'string' },
  'max-runs': { type: 'string' },
  'time-limit': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function number(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UserError(`--${flag} takes a number, got '${text}'`);
  return n;
}

export async function shrinkCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, OPTIONS, 'shrink');
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UserError(
      positionals.length === 0
        ? `give the folder of an invalid run: ${cliCommand} shrink store/latest`
        : `give one run folder, got ${positionals.length}`,
    );
  }
  const s = (k: string) => values[k] as string | undefined;
  const interrupt = onInterrupt('stopping the search: the run in progress heals; the best so far is written');
  try {
    const r = await shrinkRun(positionals[0] as string, {
      trials: number('trials', s('trials')),
      minHits: number('min-hits', s('min-hits')),
      maxRuns: number('max-runs', s('max-runs')),
      timeLimitS: number('time-limit', s('time-limit')),
      signal: interrupt.signal,
      log: (line) => console.error(line),
    });
    console.log(
      r.smaller
        ? `smallest reproducer: ${describeCandidate(r.best)}`
        : `already minimal: nothing smaller was invalid often enough (${describeCandidate(r.best)})`,
    );
    console.log(`${r.runs} runs in ${r.elapsedS} s${r.stoppedBy ? `; ended at its budget (${r.stoppedBy})` : ''}`);
    console.log(`reproduce: ${reproduceCommand(r.minimalSchedule)}`);
    console.log(`page: ${r.page}`);
    if (r.stoppedBy === 'interrupted') return 130;
    return r.smaller ? 0 : 1;
  } finally {
    interrupt.dispose();
  }
}
