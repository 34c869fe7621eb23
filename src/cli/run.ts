/** `lockchaos run`: one test, from the command line to an exit code. */
import { parseArgs } from 'node:util';
import { BACKENDS } from '../backends/index.js';
import { exitCodeFor } from '../../checkers/result.js';
import { WORKLOADS } from '../../workloads/index.js';
import { FAULT_KINDS } from '../nemesis/spec.js';
import { DEFAULTS, type TestConfig, testName } from '../runner/config.js';
import { run } from '../runner/run.js';
import { formatSummary } from '../runner/summary.js';
import { randomSeed } from '../util/rng.js';
import { UserError } from './errors.js';

const HELP = `Usage: lockchaos run [options]

Starts a real cluster in Docker, runs concurrent clients that take a lock and write to a
data store while a nemesis injects faults, records every operation, and checks the
history. Writes store/<test>/<timestamp>/ (test.json, history.jsonl, results.json,
nodes/*.log) and store/latest.

Options:
  --backend NAME          lock service: ${Object.keys(BACKENDS).join(', ')} (default ${DEFAULTS.backend})
  --workload NAME         what clients do: ${Object.keys(WORKLOADS).join(', ')} (default ${DEFAULTS.workload})
                            lock-set: under the lock, read a set, hold, write it plus one element
                            mutex: acquire, hold, release
  --nemesis SPEC          faults: none, or kinds separated by commas, each with an optional
                          :target (default ${DEFAULTS.nemesis}); each kind runs on its own seeded schedule:
${Object.entries(FAULT_KINDS)
  .map(([kind, k]) => `                            ${kind.padEnd(13)}${k.what}\n                            ${''.padEnd(13)}targets: ${k.targets.join(' | ')}`)
  .join('\n')}
  --lose-data             kill-node restarts Redis nodes empty (default: they keep their AOF)
  --fencing on|off        the store rejects stale fencing tokens (default off; redlock has none)
  --time-limit S          seconds of workload under faults (default ${DEFAULTS.timeLimitS})
  --concurrency N         client worker processes (default ${DEFAULTS.concurrency})
  --ttl MS                lock lease TTL (default ${DEFAULTS.ttlMs})
  --hold MS               time a holder keeps the lock between read and write (default ${DEFAULTS.holdMs})
  --rate N                acquire cycles per second across clients, 0 = unthrottled (default ${DEFAULTS.rate})
  --acquire-timeout MS    give up an acquire after this long, a fail (default ${DEFAULTS.acquireTimeoutMs})
  --request-timeout MS    a request unanswered this long is recorded as info (default ${DEFAULTS.requestTimeoutMs})
  --nemesis-interval S    mean seconds between faults (default ${DEFAULTS.nemesisIntervalS})
  --nodes N               lock-service nodes (redlock masters, default 5)
  --seed N                seed for every random choice (default: random, recorded in test.json)
  --store DIR             where runs are written (default ${DEFAULTS.storeDir})
  --name NAME             test name, the folder under the store (default backend-workload-nemesis-fencing)
  --no-build              stop, instead of building the node image, when it is missing
  -h, --help              this help

Exit codes: 0 valid, 1 invalid, 2 unknown, 3 error.`;

const OPTIONS = {
  backend: { type: 'string' },
  workload: { type: 'string' },
  nemesis: { type: 'string' },
  fencing: { type: 'string' },
  'time-limit': { type: 'string' },
  concurrency: { type: 'string' },
  ttl: { type: 'string' },
  hold: { type: 'string' },
  rate: { type: 'string' },
  'acquire-timeout': { type: 'string' },
  'request-timeout': { type: 'string' },
  'nemesis-interval': { type: 'string' },
  nodes: { type: 'string' },
  seed: { type: 'string' },
  store: { type: 'string' },
  name: { type: 'string' },
  'no-build': { type: 'boolean' },
  'lose-data': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function number(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UserError(`--${flag} takes a number, got '${text}'`);
  return n;
}

/** Builds a validated-shape TestConfig from flags (values are validated by the runner). */
export function configFromArgs(argv: string[]): { config: TestConfig; build: boolean } | 'help' {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new UserError(`${(err as Error).message.split('\n')[0]} (see lockchaos run --help)`);
  }
  if (values.help) return 'help';
  const s = (k: string) => values[k] as string | undefined;
  const fencing = s('fencing') ?? 'off';
  if (fencing !== 'on' && fencing !== 'off') throw new UserError(`--fencing takes on or off, got '${fencing}'`);
  const partial = {
    backend: s('backend') ?? DEFAULTS.backend,
    workload: s('workload') ?? DEFAULTS.workload,
    nemesis: s('nemesis') ?? DEFAULTS.nemesis,
    fencing: fencing === 'on',
  };
  const config: TestConfig = {
    name: s('name') ?? testName(partial),
    ...partial,
    timeLimitS: number('time-limit', s('time-limit'), DEFAULTS.timeLimitS),
    concurrency: number('concurrency', s('concurrency'), DEFAULTS.concurrency),
    ttlMs: number('ttl', s('ttl'), DEFAULTS.ttlMs),
    holdMs: number('hold', s('hold'), DEFAULTS.holdMs),
    rate: number('rate', s('rate'), DEFAULTS.rate),
    acquireTimeoutMs: number('acquire-timeout', s('acquire-timeout'), DEFAULTS.acquireTimeoutMs),
    requestTimeoutMs: number('request-timeout', s('request-timeout'), DEFAULTS.requestTimeoutMs),
    nemesisIntervalS: number('nemesis-interval', s('nemesis-interval'), DEFAULTS.nemesisIntervalS),
    seed: number('seed', s('seed'), randomSeed()),
    storeDir: s('store') ?? DEFAULTS.storeDir,
  };
  if (s('nodes') !== undefined) config.nodes = number('nodes', s('nodes'), 0);
  if (values['lose-data']) config.loseData = true;
  return { config, build: !values['no-build'] };
}

export async function runCommand(argv: string[]): Promise<number> {
  const parsed = configFromArgs(argv);
  if (parsed === 'help') {
    console.log(HELP);
    return 0;
  }
  // Ctrl-C (or SIGTERM): end the workload, heal, tear down, check what was recorded.
  // A second one leaves at once; the next run's sweep removes what is left.
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    console.error(`\n${signal}: stopping the run, healing faults and removing containers (again to quit at once)`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await run(parsed.config, {
      log: (line) => console.error(line),
      signal: abort.signal,
      buildImage: parsed.build,
    });
    console.log(formatSummary(result));
    return exitCodeFor(result.valid);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
