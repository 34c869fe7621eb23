import { WORKLOADS } from '../../workloads/index.js';
import { BACKOFF } from '../backends/backend.js';
import { BACKENDS } from '../backends/index.js';
import { FAULT_KINDS } from '../nemesis/spec.js';
import { runAndReport } from '../report/reported-run.js';
import { formatSummary } from '../report/summary.js';
import { EXIT_INTERRUPTED, RunInterrupted, runExitCode } from '../runner/conditions.js';
import { DEFAULTS, parseStoredConfig, type TestConfig, testName, validateConfig } from '../runner/config.js';
import { readRunFile, readScheduleFile } from '../runner/schedule-file.js';
import { SCENARIOS, scenarioByName } from '../scenarios/index.js';
import { UserError } from '../util/errors.js';
import { randomSeed } from '../util/rng.js';
import { onOff, parseCommandArgs } from './args.js';
import { onInterrupt } from './interrupt.js';

const HELP = `Usage: lockchaos run [options]

Starts a real cluster in Docker, runs concurrent clients that take a lock and write to a
data store while a nemesis injects faults, records every operation, and checks the
history. Writes store/<test>/<timestamp>/ (test.json, history.jsonl, results.json,
nodes/*.log) and store/latest.

Options:
  --backend NAME|PATH     lock service: ${Object.keys(BACKENDS).join(', ')} (default ${DEFAULTS.backend}),
                          or a module that exports a Backend (./my-lock.mjs; README "Adding a lock backend")
  --workload NAME         what clients do: ${Object.keys(WORKLOADS).join(', ')} (default ${DEFAULTS.workload})
                            lock-set: under the lock, read a set, hold, write it plus one element
                            mutex: acquire, hold, release
  --nemesis SPEC          faults: none, or kinds separated by commas, each with an optional
                          :target (default ${DEFAULTS.nemesis}); each kind runs on its own seeded schedule:
${Object.entries(FAULT_KINDS)
  .map(
    ([kind, k]) =>
      `                            ${kind.padEnd(13)}${k.what}\n                            ${''.padEnd(13)}targets: ${k.targets.join(' | ')}`,
  )
  .join('\n')}
  --lose-data             kill-node restarts nodes empty (default: Redis keeps its AOF, etcd/ZooKeeper their data)
  --scenario NAME         a preset failure story (lockchaos scenarios): its backend, workload,
                          nemesis and timings; --fencing and any flag given still apply
  --fencing on|off        the store rejects stale fencing tokens (default off; redlock has none)
  --time-limit S          seconds of workload under faults (default ${DEFAULTS.timeLimitS})
  --concurrency N         client worker processes (default ${DEFAULTS.concurrency})
  --ttl MS                lock lease TTL (default ${DEFAULTS.ttlMs})
  --hold MS               time a holder keeps the lock between read and write (default ${DEFAULTS.holdMs})
  --rate N                acquire cycles per second across clients, 0 = unthrottled (default ${DEFAULTS.rate})
  --acquire-timeout MS    give up an acquire after this long, a fail (default ${DEFAULTS.acquireTimeoutMs})
  --request-timeout MS    a request unanswered this long is recorded as info (default ${DEFAULTS.requestTimeoutMs})
  --nemesis-interval S    mean seconds between faults (default ${DEFAULTS.nemesisIntervalS})
  --pause-ttl X           client-pause pauses exactly X times the TTL (default: a seeded draw, 0.8-2x)
  --backoff-jitter MS     the Uniform(0, MS) added to each acquire retry's backoff (default ${BACKOFF.jitterMs}; 0: none)
  --nodes N               lock-service nodes (redlock masters, default 5)
  --backend-options K=V,...  the backend's own options (e.g. redis-sentinel wait=1,min-replicas=1):
${Object.values(BACKENDS)
  .flatMap((b) =>
    Object.entries(b.options ?? {}).map(
      ([k, o]) => `                            ${b.name} ${k}: ${o.what} (default ${o.default})`,
    ),
  )
  .join('\n')}
  --seed N                seed for every random choice (default: random, recorded in test.json)
  --store DIR             where runs are written (default ${DEFAULTS.storeDir})
  --name NAME             test name, the folder under the store (default backend-workload-nemesis-fencing)
  --no-build              stop, instead of building the node image, when it is missing
  --no-latest             do not point <store>/latest at the run (stores uploaded as CI artifacts)
  --replay PATH           run a stored run again: its folder or its test.json (same configuration,
                          seed and fault schedule; only --store, --no-build and --no-latest may go with it)
  --schedule FILE         apply these faults at their times instead of drawing them: a schedule file
                          (lockchaos shrink writes one), or a run folder or test.json; its run parameters
                          are the defaults, flags given still apply, the seed is new unless --seed
  --stop-on-violation     end the workload at the first overlap of holds (unfenced), then heal, read
                          and check as usual: an invalid run costs seconds, not the time limit
  -h, --help              this help

Exit codes: 0 valid, 1 invalid, 2 unknown (also: too few grants, accepted writes or reads
to judge), 3 error (bad input, or a run that did not run as configured: a client worker
lost, the data store lost, the time limit overrun), 130 interrupted (Ctrl-C, SIGTERM).`;

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
  'pause-ttl': { type: 'string' },
  'backoff-jitter': { type: 'string' },
  'backend-options': { type: 'string' },
  seed: { type: 'string' },
  store: { type: 'string' },
  name: { type: 'string' },
  'no-build': { type: 'boolean' },
  'no-latest': { type: 'boolean' },
  replay: { type: 'string' },
  schedule: { type: 'string' },
  'stop-on-violation': { type: 'boolean' },
  'lose-data': { type: 'boolean' },
  scenario: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

function number(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UserError(`--${flag} takes a number, got '${text}'`);
  return n;
}

/** Builds a validated-shape TestConfig from flags (values are validated by the runner). */
export function configFromArgs(argv: string[]): { config: TestConfig; build: boolean; latest: boolean } | 'help' {
  const { values } = parseCommandArgs(argv, OPTIONS, 'run', { positionals: false });
  if (values.help) return 'help';
  const s = (k: string) => values[k] as string | undefined;
  const replay = s('replay');
  if (replay !== undefined) {
    const other = Object.keys(values).filter((k) => !REPLAY_FLAGS.includes(k) && values[k] !== undefined);
    if (other.length > 0) {
      throw new UserError(
        `--replay runs the stored configuration as it was: drop ${other.map((k) => `--${k}`).join(', ')} (only --store, --no-build and --no-latest may go with it)`,
      );
    }
    return { config: loadReplayConfig(replay, s('store')), build: !values['no-build'], latest: !values['no-latest'] };
  }
  const fenced = onOff('fencing', s('fencing'));
  // A schedule file and a scenario supply the defaults; flags given explicitly still win.
  const scheduled = s('schedule') === undefined ? undefined : readScheduleFile(s('schedule') as string);
  const scenarioName = s('scenario') ?? scheduled?.config.scenario;
  const scenario = scenarioName === undefined ? undefined : scenarioByName(scenarioName);
  if (scenarioName !== undefined && !scenario) {
    throw new UserError(
      `unknown scenario '${scenarioName}': choose one of ${Object.keys(SCENARIOS).join(', ')} (lockchaos scenarios)`,
    );
  }
  const base: Omit<TestConfig, 'name' | 'seed'> = { ...DEFAULTS, ...scenario?.config, ...scheduled?.config };
  const backend = s('backend') ?? base.backend;
  if (scenario && s('backend') !== undefined && !(scenario.backends ?? [scenario.config.backend]).includes(backend)) {
    throw new UserError(
      `scenario ${scenario.name} runs on ${(scenario.backends ?? [scenario.config.backend]).join(', ')}, not --backend ${backend}`,
    );
  }
  const partial = {
    backend,
    workload: s('workload') ?? base.workload,
    nemesis: s('nemesis') ?? base.nemesis,
    fencing: fenced,
  };
  const defaultName = scenario
    ? `${scenario.name}${backend !== scenario.config.backend ? `-${backend}` : ''}-${partial.fencing ? 'fenced' : 'unfenced'}`
    : testName(partial);
  const config: TestConfig = {
    name: s('name') ?? defaultName,
    ...partial,
    timeLimitS: number('time-limit', s('time-limit'), base.timeLimitS),
    concurrency: number('concurrency', s('concurrency'), base.concurrency),
    ttlMs: number('ttl', s('ttl'), base.ttlMs),
    holdMs: number('hold', s('hold'), base.holdMs),
    rate: number('rate', s('rate'), base.rate),
    acquireTimeoutMs: number('acquire-timeout', s('acquire-timeout'), base.acquireTimeoutMs),
    requestTimeoutMs: number('request-timeout', s('request-timeout'), base.requestTimeoutMs),
    nemesisIntervalS: number('nemesis-interval', s('nemesis-interval'), base.nemesisIntervalS),
    seed: number('seed', s('seed'), randomSeed()),
    storeDir: s('store') ?? base.storeDir,
  };
  if (scenario) config.scenario = scenario.name;
  if (s('nodes') !== undefined) config.nodes = number('nodes', s('nodes'), 0);
  const pauseTtl = s('pause-ttl') ?? base.pauseTtl;
  if (pauseTtl !== undefined) config.pauseTtl = number('pause-ttl', String(pauseTtl), 0);
  const jitter = s('backoff-jitter') ?? base.backoffJitterMs;
  if (jitter !== undefined) config.backoffJitterMs = number('backoff-jitter', String(jitter), 0);
  const backendOptions = s('backend-options') ?? base.backendOptions;
  if (backendOptions !== undefined) config.backendOptions = backendOptions;
  if (values['lose-data'] || base.loseData) config.loseData = true;
  if (values['stop-on-violation'] || base.stopOnViolation) config.stopOnViolation = true;
  if (scheduled) config.schedule = scheduled.faults;
  return { config, build: !values['no-build'], latest: !values['no-latest'] };
}

const REPLAY_FLAGS = ['replay', 'store', 'no-build', 'no-latest'];

/**
 * The configuration of a stored run, for --replay: PATH is a run folder or its test.json.
 * Everything is kept (seed included, so the fault schedule is drawn the same), except the
 * store when one is given. A missing or bad file is one UserError line.
 */
export function loadReplayConfig(path: string, store?: string): TestConfig {
  const { file, text } = readRunFile(path, '--replay');
  let stored: TestConfig;
  try {
    stored = parseStoredConfig(text, file);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`--replay: ${err.message}`);
    throw err;
  }
  const config = { ...stored, ...(store !== undefined ? { storeDir: store } : {}) };
  try {
    return validateConfig(config);
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`--replay: '${file}': ${err.message}`);
    throw err;
  }
}

export async function runCommand(argv: string[]): Promise<number> {
  const parsed = configFromArgs(argv);
  if (parsed === 'help') {
    console.log(HELP);
    return 0;
  }
  // Ctrl-C (or SIGTERM): end the workload, heal, tear down, check what was recorded.
  const interrupt = onInterrupt('stopping the run, healing faults and removing containers');
  try {
    const result = await runAndReport(parsed.config, {
      log: (line) => console.error(line),
      signal: interrupt.signal,
      buildImage: parsed.build,
      latest: parsed.latest,
    });
    console.log(formatSummary(result));
    return runExitCode(result.valid, result.conditions);
  } catch (err) {
    if (!(err instanceof RunInterrupted)) throw err;
    console.error(`lockchaos run: ${err.message}: nothing to check (containers removed)`);
    return EXIT_INTERRUPTED;
  } finally {
    interrupt.dispose();
  }
}
