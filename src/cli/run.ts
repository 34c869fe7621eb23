import { formatSummary } from '../report/summary.js';
import { runAndReport } from '../reported-run/reported-run.js';
import { EXIT_INTERRUPTED, RunInterrupted, runExitCode } from '../run-data/conditions.js';
import { fencingWord, type TestConfig } from '../run-data/config.js';
import { helpText, PARAMETER_LIST, type Parameter } from '../run-data/parameters.js';
import { prepareRun } from '../run-data/prepare.js';
import { parseTestJson, readRunFile, rerunConfig } from '../run-data/run-folder.js';
import { readScheduleFile } from '../run-data/schedule-file.js';
import { targetDryRun } from '../runner/target-dry-run.js';
import { resolveScenario, scenarioRunsOn } from '../scenarios/index.js';
import { UserError } from '../util/errors.js';
import { randomSeed } from '../util/rng.js';
import { colourFor } from '../util/terminal.js';
import { onOff, parseCommandArgs } from './args.js';
import { onInterrupt } from './interrupt.js';
import { runJson, runJsonInterrupted } from './run-json.js';

/** The run command's own flags: how to run, not what (the run parameters are parameters.ts). */
const COMMAND_FLAGS = {
  'no-build': { type: 'boolean', help: 'stop, instead of building the node image, when it is missing' },
  'no-latest': { type: 'boolean', help: 'do not point <store>/latest at the run (stores uploaded as CI artifacts)' },
  json: {
    type: 'boolean',
    help: 'print the result as one JSON object on stdout (with the lockchaos version),\nin place of the summary; progress stays on stderr',
  },
  'dry-run': {
    type: 'boolean',
    help: 'with --target: print, host by host, every command the run would execute on the\ntarget, and exit (nothing is connected, imported or started)',
  },
  replay: {
    type: 'string',
    arg: 'PATH',
    help: 'run a stored run again: its folder or its test.json (same configuration,\nseed and fault schedule; only --store, --no-build and --no-latest may go with it)',
  },
} as const satisfies Record<string, { type: 'string' | 'boolean'; arg?: string; help: string }>;

/** An option's lines in --help: its text from column 27, the lines after the first under it. */
function helpEntry(head: string, text: string): string {
  const [first, ...rest] = text.split('\n');
  return [`  ${head.padEnd(22)}  ${first}`, ...rest.map((line) => `${' '.repeat(26)}${line}`)].join('\n');
}

const flagHelp = (flag: string, arg: string | undefined, text: string) =>
  helpEntry(`--${flag}${arg ? ` ${arg}` : ''}`, text);

function help(): string {
  const commandFlags = Object.entries(COMMAND_FLAGS).map(([flag, f]) =>
    flagHelp(flag, 'arg' in f ? f.arg : undefined, f.help),
  );
  // The parameters in their order; the command's own flags before --schedule.
  const options = PARAMETER_LIST.flatMap((p) => [
    ...(p.field === 'schedule' ? commandFlags : []),
    flagHelp(p.flag, p.arg, helpText(p)),
  ]);
  return `Usage: lockchaos run [options]

Starts a real cluster in Docker (or tests one you run: --target), runs concurrent clients
that take a lock and write to a data store while a nemesis injects faults, records every
operation, and checks the history. Writes store/<test>/<timestamp>/ (test.json,
history.jsonl, results.json, nodes/*.log) and store/latest.

Examples:
  lockchaos run --backend redlock --nemesis client-pause --time-limit 20
      Redlock's lease under paused clients, unfenced: two holders at once (INVALID)
  lockchaos run --backend etcd --nemesis client-pause --fencing on --seed 3
      the same pauses, with etcd's revision as a fencing token checked by the store (valid)
  lockchaos run --scenario gc-pause        a preset failure story (lockchaos scenarios)
  lockchaos run --replay store/latest      the same run again, from its test.json
  lockchaos run --backend etcd --target hosts.yaml --nemesis pause-node --dry-run
      the commands a run would execute on your own etcd's hosts, host by host (docs/targets.md)

Options:
${options.join('\n')}
${helpEntry('-h, --help', 'this help')}

Exit codes: 0 valid, 1 invalid, 2 unknown (also: too few grants, accepted writes or reads
to judge), 3 error (bad input, or a run that did not run as configured: a client worker
lost, the data store lost, the time limit overrun), 130 interrupted (Ctrl-C, SIGTERM).`;
}

const OPTIONS: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
  ...Object.fromEntries(PARAMETER_LIST.map((p) => [p.flag, { type: p.type === 'switch' ? 'boolean' : 'string' }])),
  ...Object.fromEntries(Object.entries(COMMAND_FLAGS).map(([flag, f]) => [flag, { type: f.type }])),
  help: { type: 'boolean', short: 'h' },
};

function number(flag: string, text: string): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n)) throw new UserError(`--${flag} takes a number, got '${text}'`);
  return n;
}

/** A parameter's value from its flag's text (a switch: true). */
function flagValue(p: Parameter, raw: string | boolean): unknown {
  if (p.type === 'switch') return true;
  const text = String(raw);
  if (p.type === 'number') return number(p.flag, text);
  if (p.type === 'on-off') return onOff(p.flag, text);
  return text;
}

/** The parameters given as flags (but --schedule, a file read apart). */
function givenParameters(values: Record<string, string | boolean | undefined>): Partial<TestConfig> {
  const given: Record<string, unknown> = {};
  for (const p of PARAMETER_LIST) {
    const raw = values[p.flag];
    if (raw !== undefined && p.type !== 'faults') given[p.field] = flagValue(p, raw);
  }
  return given as Partial<TestConfig>;
}

/** Builds a validated-shape TestConfig from flags (values are validated by the runner). */
export function configFromArgs(
  argv: string[],
): { config: TestConfig; build: boolean; latest: boolean; json: boolean; replay?: string; dryRun?: boolean } | 'help' {
  const { values } = parseCommandArgs(argv, OPTIONS, 'run', { positionals: false });
  if (values.help) return 'help';
  const s = (k: string) => values[k] as string | undefined;
  const replay = s('replay');
  if (replay !== undefined) {
    const other = Object.keys(values).filter((k) => !REPLAY_FLAGS.includes(k) && values[k] !== undefined);
    if (other.length > 0) {
      throw new UserError(
        `--replay runs the stored configuration as it was: drop ${other.map((k) => `--${k}`).join(', ')} (only --store, --no-build, --no-latest and --json may go with it)`,
      );
    }
    const { file, config } = readReplayConfig(replay, s('store'));
    return { config, build: !values['no-build'], latest: !values['no-latest'], json: !!values.json, replay: file };
  }
  const { name, seed, scenario: scenarioFlag, ...flags } = givenParameters(values);
  // A schedule file and a scenario supply the defaults; flags given explicitly still win.
  const scheduled = s('schedule') === undefined ? undefined : readScheduleFile(s('schedule') as string);
  // A --backend given anew is found from here, not where the schedule's module was.
  const lent =
    scheduled && flags.backend !== undefined ? { ...scheduled.config, backendModule: undefined } : scheduled?.config;
  const { scenario, config: resolved } = resolveScenario(scenarioFlag ?? scheduled?.config.scenario, {
    over: { ...lent, ...flags },
  });
  const parameters = resolved;
  if (parameters.backendModule === undefined) delete parameters.backendModule;
  if (scenario && flags.backend !== undefined && !scenarioRunsOn(scenario).backend.includes(flags.backend)) {
    throw new UserError(
      `scenario ${scenario.name} runs on ${scenarioRunsOn(scenario).backend.join(', ')}, not --backend ${flags.backend}`,
    );
  }
  const { backend, fencing } = parameters;
  // Without a scenario the run names itself once its backend is loaded (resolve.ts).
  const defaultName = scenario
    ? `${scenario.name}${backend !== scenario.config.backend ? `-${backend}` : ''}-${fencingWord(fencing)}`
    : '';
  const config: TestConfig = { name: name ?? defaultName, ...parameters, seed: seed ?? randomSeed() };
  if (scheduled) config.schedule = scheduled.faults;
  const dryRun = values['dry-run'] === true;
  return { config, build: !values['no-build'], latest: !values['no-latest'], json: !!values.json, dryRun };
}

const REPLAY_FLAGS = ['replay', 'store', 'no-build', 'no-latest', 'json'];

/**
 * The configuration of a stored run, for --replay: PATH is a run folder or its test.json.
 * Everything is kept (seed included, so the fault schedule is drawn the same), except the
 * store when one is given. A missing or bad file is one UserError line.
 */
export async function loadReplayConfig(path: string, store?: string): Promise<TestConfig> {
  const { file, config } = readReplayConfig(path, store);
  return (await prepareRun(config, replayFrom(file))).config;
}

/** A stored run's configuration, read, not yet prepared. */
function readReplayConfig(path: string, store?: string): { file: string; config: TestConfig } {
  const { file, text } = readRunFile(path, '--replay');
  let stored: TestConfig;
  try {
    stored = rerunConfig(parseTestJson(text, file));
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`--replay: ${err.message}`);
    throw err;
  }
  return { file, config: { ...stored, ...(store !== undefined ? { storeDir: store } : {}) } };
}

/** A replayed configuration's problems name its file. */
const replayFrom = (file: string) => `--replay: '${file}'`;

export async function runCommand(argv: string[]): Promise<number> {
  const parsed = configFromArgs(argv);
  if (parsed === 'help') {
    console.log(help());
    return 0;
  }
  // --dry-run: the target's commands, host by host.
  if (parsed.dryRun && parsed.config.target === undefined) {
    throw new UserError(
      "--dry-run lists the commands a run executes on a target's hosts: give --target FILE (without one, lockchaos starts and removes its own containers)",
    );
  }
  if (parsed.dryRun) {
    console.log(targetDryRun(parsed.config));
    return 0;
  }
  // Ctrl-C (or SIGTERM): end the workload, heal, tear down, check what was recorded.
  const interrupt = onInterrupt('stopping the run, healing faults and removing containers');
  try {
    const result = await runAndReport(parsed.config, {
      log: (line) => console.error(line),
      ...(parsed.replay !== undefined ? { configFrom: replayFrom(parsed.replay) } : {}),
      signal: interrupt.signal,
      buildImage: parsed.build,
      latest: parsed.latest,
    });
    // Interrupted while its report was built: the verdict stands, without report.html.
    const code = interrupt.signal.aborted ? EXIT_INTERRUPTED : runExitCode(result.valid, result.conditions);
    if (parsed.json) console.log(JSON.stringify(runJson(result, code)));
    else console.log(formatSummary(result, { colour: colourFor(process.stdout) }));
    return code;
  } catch (err) {
    if (!(err instanceof RunInterrupted)) throw err;
    console.error(`lockchaos run: ${err.message}: nothing to check (containers removed)`);
    if (parsed.json) console.log(JSON.stringify(runJsonInterrupted()));
    return EXIT_INTERRUPTED;
  } finally {
    interrupt.dispose();
    // What the interruption cut short may still wait on a timer (a node's ready() that never
    // settles polls, or waits out its deadline, up to 60 s): the run is over, so is the process.
    if (interrupt.signal.aborted) setTimeout(() => process.exit(), 1000).unref();
  }
}
