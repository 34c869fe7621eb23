import { DEFAULT_BUDGET, parseBudget } from '../explore/budget.js';
import { DEFAULT_RUN_TIME_S, explore } from '../explore/explore.js';
import { DEFAULT_SHRINK_RUNS } from '../explore/shrunk.js';
import { formatTable } from '../explore/table.js';
import { UserError } from '../util/errors.js';
import { onInterrupt } from './interrupt.js';
import { configFromArgs } from './run.js';

const HELP = `Usage: lockchaos explore [options] [run's options]

Finds where a lock library breaks without being told where to aim: a short baseline run
with no fault learns the points the clients reach (every request they send on the wire,
the standard and announced code points, with counts); then each fault that can act at a
point (wire:<REQ>:pause|hold|stop|drop, client-pause:at=P, client-kill:at=P, and where
the nodes can take them pause-node:one:at=P, kill-node:one:at=P) is tried, the likeliest
first (the requests and announced points reached about as often as the lock is acquired,
then the points inside the hold), over seeds (--seed, then +1, +2 ...), within the
budget. A point's tries end at its first counted violation, and that run is shrunk
(lockchaos shrink, a few runs: the smallest schedule that still breaks the lock, and its
replay). Ends with a table, a row per point × fault (tries, violations, the finding, a
replay command), on stdout and in
<store>/explore/<timestamp>/explore.json (every try's run folder is under runs/).

Examples:
  lockchaos explore --backend redis --client-command "python3 client.py" --budget 30
  lockchaos explore --backend redis --client-dir ./my-client --budget 20m --run-time 10

Options:
  --budget N | Nm         tries to make: N runs, or N minutes (default 30 runs)
  --run-time S            each try's --time-limit, and the baseline's (default 8)
  --shrink-runs N         runs to shrink each point's violating try with (default 4; 0: none);
                          not counted in --budget
  --until-broken          end at the first configuration that broke the lock, the rest of
                          the budget unspent (a known bug's check: is it still found?)
  every option of lockchaos run (--backend, --client-command, --client-dir, --target,
  --concurrency, --ttl, --fencing, --seed, --store ...) but --nemesis, --schedule,
  --time-limit, --replay and --dry-run: the exploration chooses the faults and the time
  -h, --help              this help

Exit codes: 1 a configuration broke the lock (INVALID), 0 none did and every try ran as
configured, 3 bad input, nothing could be tried (no points learned), or a try that did not
run as configured, 130 interrupted.`;

const OWN = ['budget', 'run-time', 'shrink-runs'];
/** explore's own flags that take no value. */
const OWN_SWITCHES = ['until-broken'];
const REFUSED = ['nemesis', 'schedule', 'time-limit', 'replay', 'dry-run', 'json'];

/** explore's own flags taken out of argv (`--budget 5`, `--budget=5`); the rest are run's. */
function splitArgs(argv: readonly string[]): { own: Record<string, string>; rest: string[] } {
  const own: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(arg);
    const name = m?.[1];
    if (name && REFUSED.includes(name)) {
      throw new UserError(
        `--${name} is not an option of lockchaos explore: the exploration chooses the faults and each try's time (--run-time S) (see lockchaos explore --help)`,
      );
    }
    if (name && OWN_SWITCHES.includes(name)) {
      if (m?.[2] !== undefined) throw new UserError(`--${name} takes no value (see lockchaos explore --help)`);
      own[name] = 'yes';
    } else if (name && OWN.includes(name)) {
      const value = m?.[2] ?? argv[++i];
      if (value === undefined)
        throw new UserError(`--${name} needs a value: --${name} VALUE (see lockchaos explore --help)`);
      own[name] = value;
    } else rest.push(arg);
  }
  return { own, rest };
}

function runTime(text: string | undefined): number {
  if (text === undefined) return DEFAULT_RUN_TIME_S;
  const n = Number(text);
  if (text.trim() === '' || !(n > 0) || !Number.isFinite(n)) {
    throw new UserError(`--run-time takes seconds above 0 (each try's --time-limit), got '${text}'`);
  }
  return n;
}

function shrinkRuns(text: string | undefined): number {
  if (text === undefined) return DEFAULT_SHRINK_RUNS;
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < 0) {
    throw new UserError(`--shrink-runs takes a whole number of runs, 0 or more (0: do not shrink), got '${text}'`);
  }
  return n;
}

/** A shell word: quoted when it holds anything but plain characters. */
const word = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** run's flags for the replay lines: the ones given, without --seed and the store's latest. */
function replayBase(rest: readonly string[], runTimeS: number): string {
  const out: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i] as string;
    if (a === '--seed') {
      i++;
      continue;
    }
    if (a.startsWith('--seed=')) continue;
    out.push(word(a));
  }
  return [...out, '--time-limit', String(runTimeS)].join(' ');
}

/** run's flags read as run reads them; a problem with one points at explore's --help. */
function runConfig(rest: string[]): ReturnType<typeof configFromArgs> {
  try {
    return configFromArgs(rest);
  } catch (err) {
    if (err instanceof UserError)
      throw new UserError(err.message.replace('lockchaos run --help', 'lockchaos explore --help'));
    throw err;
  }
}

export async function exploreCommand(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    console.log(HELP);
    return 0;
  }
  const { own, rest } = splitArgs(argv);
  const budget = own.budget === undefined ? DEFAULT_BUDGET : parseBudget(own.budget);
  const runTimeS = runTime(own['run-time']);
  const shrink = shrinkRuns(own['shrink-runs']);
  const parsed = runConfig(rest);
  if (parsed === 'help') {
    console.log(HELP);
    return 0;
  }
  const interrupt = onInterrupt('stopping the exploration, healing faults and removing containers');
  try {
    const result = await explore({
      base: parsed.config,
      budget,
      runTimeS,
      replayBase: replayBase(rest, runTimeS),
      log: (line) => console.error(line),
      signal: interrupt.signal,
      buildImage: parsed.build,
      shrinkRuns: shrink,
      untilBroken: own['until-broken'] === 'yes',
    });
    if (result.points.length === 0) {
      console.error(
        `lockchaos explore: the baseline run learned no point to aim at (${result.baseline?.verdict}${result.baseline?.headline ? `: ${result.baseline.headline}` : ''}; its run: ${result.baseline?.dir ?? 'none'})`,
      );
    }
    console.log(formatTable(result.rows));
    console.log(`\n${result.tries.length} tries; ${result.dir}/explore.json`);
    return interrupt.signal.aborted ? 130 : result.exitCode;
  } finally {
    interrupt.dispose();
  }
}
