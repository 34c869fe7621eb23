/**
 * A run folder, <store>/<test>/<timestamp>/: its layout and its files, written by the
 * runner and read back by reports, replays, shrinks, schedules and campaigns. test.json
 * holds the run's parameters and, in a section of its own (`recorded`), what the run
 * recorded that is not a parameter: the store key its checks read and the faults it
 * applied; history.jsonl the operations; results.json the verdict; nodes/ the node logs.
 *
 * A run whose runner was killed leaves test.json and a history prefix: in arrival order
 * (the runner re-sorts only at the end), possibly with a last line cut mid-write, and no
 * results.json. Such a run is still worth a report: the cut line is left out (said so),
 * the prefix is put in time order (keeping each op's stored index, so that "op #N" still
 * names line N+1 of history.jsonl), and the checkers run here on what was recorded.
 *
 * Every problem with the input is a UserError with one line that names it.
 */

import { createHash } from 'node:crypto';
import { closeSync, existsSync, readdirSync, readSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { CoverageRow } from '../../checkers/coverage.js';
import { lostUpdatesWithoutFinalRead } from '../../checkers/lost-updates.js';
import { type CheckResult, countedVerdict, type Validity } from '../../checkers/result.js';
import { checkRun } from '../../workloads/checks.js';
import { STORE_KEY } from '../datastore/keys.js';
import { parseJsonl } from '../history/jsonl.js';
import type { Op } from '../history/op.js';
import { pairLeniently } from '../history/pairs.js';
import { refuseDeepOps } from '../history/value-depth.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { MAX_DEPTH, nestedDeeperThan } from '../util/depth.js';
import { UserError } from '../util/errors.js';
import { makeDirs } from '../util/make-dirs.js';
import { MiB, openRegularFile, readRegularFile, sizeWords } from '../util/regular-file.js';
import { SCHEMA_VERSION, stamped, version } from '../version.js';
import { type RunCondition, runVerdict } from './conditions.js';
import { parseJson, parseScheduledFaults, storedConfig, type TestConfig } from './config.js';
import type { RunPhaseSeconds } from './run-phases.js';

/** A run folder's files and folders, by what they hold. */
export const RUN_FILES = {
  test: 'test.json',
  history: 'history.jsonl',
  results: 'results.json',
  nodes: 'nodes',
  report: 'report.html',
  junit: 'junit.xml',
} as const;

/** The path of one of a run folder's files. */
export const runFile = (dir: string, file: keyof typeof RUN_FILES) => join(dir, RUN_FILES[file]);

/** Where a node's log goes. */
export const nodeLogFile = (dir: string, node: string) => join(dir, RUN_FILES.nodes, `${node}.log`);

/** Seconds from start to verdict, the part spent starting the cluster, and each phase's. */
export interface RunTimings {
  totalS: number;
  clusterS: number;
  phases?: RunPhaseSeconds;
}

/** --stop-on-violation ended the workload before its time limit: when, and on what. */
export interface StoppedEarly {
  /** Seconds of workload when the violation was seen. */
  atS: number;
  /** What was seen, in words. */
  why: string;
}

const stamp = () => new Date().toISOString().replace(/:/g, '-');

/**
 * A new run's folder, <store>/<name>/<timestamp>/ with its nodes/, and `latest` beside
 * the tests pointing at it (unless `latest` is false: CI artifact stores want no links).
 */
export function createRunFolder(storeDir: string, name: string, latest = true): string {
  // No : or , in folder names: artifact uploaders refuse them.
  const dir = join(storeDir, name.replace(/[:,]/g, '_'), stamp());
  makeDirs(join(dir, RUN_FILES.nodes));
  if (latest) pointLatest(storeDir, dir);
  return dir;
}

/** Points the link `name` in `parent` at `dir` (relative, so that the store can move). */
export function pointLatest(parent: string, dir: string, name = 'latest'): void {
  const link = join(parent, name);
  rmSync(link, { force: true });
  symlinkSync(relative(parent, dir), link);
}

/** What a run recorded that is not a parameter: test.json's `recorded` section. */
export interface Recorded {
  /** The data store's key the run's checks read. */
  storeKey: string;
  /** The faults the run applied, in order of start (a replay or a shrink applies these). */
  schedule?: ScheduledFault[];
}

/** A run's test.json, read back. */
export interface StoredRun {
  config: TestConfig;
  recorded: Recorded;
}

/** The text of a run's test.json (parseTestJson reads it back). */
export function testJsonText(config: TestConfig, recorded: Recorded = { storeKey: STORE_KEY }): string {
  return `${JSON.stringify(stamped({ ...config, recorded }), null, 2)}\n`;
}

export function writeTestJson(dir: string, config: TestConfig, recorded?: Recorded): void {
  writeFileSync(runFile(dir, 'test'), testJsonText(config, recorded));
}

/**
 * Which history.jsonl a results.json was made from: its size and SHA-256. A report checks
 * the history on disk against it, since the file may have been cut or edited since.
 */
export interface HistoryFingerprint {
  bytes: number;
  sha256: string;
}

/** The fingerprint of a file, read in pieces (a million operations are 330 MB). */
export function fingerprintOf(path: string): HistoryFingerprint {
  const hash = createHash('sha256');
  const { fd } = openRegularFile(path, 'history');
  const chunk = Buffer.allocUnsafe(1 << 24);
  let bytes = 0;
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      hash.update(chunk.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * What a run came to: its checks' results, its verdict, and how it did not run as
 * configured. results.json holds it (ResultsRecord), a finished run returns it
 * (RunResult), and a stored run reads it back (LoadedRun).
 */
export interface RunOutcome {
  valid: Validity;
  /** How the run did not run as configured (empty: it did); see conditions.ts. */
  conditions: RunCondition[];
  results: CheckResult[];
  /** Seconds from start to verdict, the part spent starting the cluster, and each phase's. */
  timings?: RunTimings;
  /** --stop-on-violation ended the workload before its time limit: when, and on what. */
  stoppedEarly?: StoppedEarly;
  /** The code points the clients reached, the faults aimed at them, and what followed. */
  coverage?: CoverageRow[];
}

/** A finished run, as run() (runner/run.ts) returns it: its folder, configuration, history and outcome. */
export interface RunResult extends RunOutcome {
  dir: string;
  config: TestConfig;
  history: Op[];
  timings: RunTimings;
}

/**
 * The schema version results.json is written with: its `schema` field (version.ts's
 * stamp, as on every JSON file lockchaos writes). Raised when a field changes meaning.
 */
export const RESULTS_SCHEMA = SCHEMA_VERSION;

/**
 * results.json, a run's verdict file, its fields in the order writeResults writes them.
 * readResults reads it back, also one written before a field was: a file without the stamp
 * reads as schema 1, without conditions as none, without a verdict as its results' count.
 */
export interface ResultsRecord extends RunOutcome {
  /** What wrote it (version.ts); absent in a file from before the stamp. */
  lockchaos?: string;
  /** RESULTS_SCHEMA when written. */
  schema: number;
  /**
   * The configuration it ran, with the faults it applied. Always written; as read, it is
   * not checked (test.json is the configuration a replay reads back).
   */
  config?: TestConfig;
  /** Interrupted while checking (the condition's message): the report command checks it. */
  unchecked?: string;
  /** The history it was made from, last (a results.json written before this was recorded has none). */
  history?: HistoryFingerprint;
}

/** What the runner hands writeResults: the record less what the writer adds (the stamp, the fingerprint). */
export type ResultsFields = Omit<ResultsRecord, 'lockchaos' | 'schema' | 'history' | 'config' | 'timings'> & {
  config: TestConfig;
  timings: RunTimings;
};

/**
 * The keys results.json begins with, in order: the stamp, the verdict, the conditions and
 * the configuration (whose fields come before its fault schedule, the one long part); the
 * checkers' details, tens of kB, come after. serve reads only a file's head for these.
 */
export const RESULTS_HEAD_KEYS = ['lockchaos', 'schema', 'valid', 'conditions', 'config'] as const;

/**
 * results.json: what wrote it (version.ts), the verdict, what the run was, and the
 * fingerprint of the history it was made from, written in ResultsRecord's order (the
 * head first: RESULTS_HEAD_KEYS).
 */
export function writeResults(dir: string, fields: ResultsFields): void {
  const historyPath = runFile(dir, 'history');
  const { valid, conditions, config, timings, results, coverage, stoppedEarly, unchecked } = fields;
  const record: ResultsRecord = {
    lockchaos: version,
    schema: RESULTS_SCHEMA,
    valid,
    conditions,
    config,
    timings,
    results,
    ...(coverage !== undefined ? { coverage } : {}),
    ...(stoppedEarly !== undefined ? { stoppedEarly } : {}),
    ...(unchecked !== undefined ? { unchecked } : {}),
    ...(existsSync(historyPath) ? { history: fingerprintOf(historyPath) } : {}),
  };
  writeFileSync(runFile(dir, 'results'), `${JSON.stringify(record, null, 2)}\n`);
}

/**
 * A run folder's results.json (at `path`), read back: JSON, an object with a results list,
 * not nested past MAX_DEPTH, within its size limit. Its fields as ResultsRecord has them;
 * one of the wrong type is left out (or, where the record needs it, given its default).
 * Throws an Error naming what is wrong: loadRun checks the history again then.
 */
export function readResults(path: string): ResultsRecord {
  const parsed = JSON.parse(readBounded(path, 'results', MAX_RESULTS_JSON_BYTES)) as Record<string, unknown> | null;
  if (!parsed || !Array.isArray(parsed.results)) throw new Error('no results list');
  if (nestedDeeperThan(parsed)) throw new Error(`nested more than ${MAX_DEPTH} levels deep`);
  const { lockchaos, schema, valid, conditions, config, timings, stoppedEarly, coverage, unchecked, history } =
    parsed as Partial<Record<keyof ResultsRecord, unknown>>;
  const results = parsed.results as CheckResult[];
  const fingerprint = history as Partial<HistoryFingerprint> | undefined;
  return {
    ...(typeof lockchaos === 'string' ? { lockchaos } : {}),
    schema: typeof schema === 'number' ? schema : 1,
    valid: (valid ?? countedVerdict(results)) as Validity,
    conditions: Array.isArray(conditions) ? (conditions as RunCondition[]) : [],
    ...(config ? { config: config as TestConfig } : {}),
    ...(timings ? { timings: timings as RunTimings } : {}),
    results,
    ...(Array.isArray(coverage) ? { coverage: coverage as CoverageRow[] } : {}),
    ...(stoppedEarly ? { stoppedEarly: stoppedEarly as StoppedEarly } : {}),
    ...(typeof unchecked === 'string' ? { unchecked } : {}),
    ...(fingerprint && typeof fingerprint.bytes === 'number' && typeof fingerprint.sha256 === 'string'
      ? { history: { bytes: fingerprint.bytes, sha256: fingerprint.sha256 } }
      : {}),
  };
}

const sameFingerprint = (a: HistoryFingerprint, b: HistoryFingerprint) => a.bytes === b.bytes && a.sha256 === b.sha256;

/** The words for a history that is not the one results.json was made from. */
const historyChanged = (was: HistoryFingerprint, now: HistoryFingerprint) =>
  `history.jsonl is not the one results.json was made from (${was.bytes} bytes then, ${now.bytes} now${was.bytes === now.bytes ? ', its SHA-256 differs' : ''})`;

/**
 * A stored test.json, read back (by --replay, reports, shrink, a schedule): JSON, an
 * object, every field a run records of its type, and the recorded section. A run written
 * before that section kept the store key and the faults it applied beside the parameters:
 * they are read from there. Bad content is one UserError line naming the file.
 */
export function parseTestJson(text: string, file: string): StoredRun {
  const parsed = parseJson(text, file);
  // What wrote the file (version.ts's stamp) is not part of the configuration; anything but
  // an object goes to storedConfig as it is, to be refused as one.
  const plain = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  const {
    lockchaos: _v,
    schema: _s,
    recorded,
    storeKey: olderKey,
    ...fields
  } = plain ? (parsed as Record<string, unknown>) : {};
  const config = storedConfig(plain ? fields : parsed, file) as TestConfig;
  const bad = (what: string, value: unknown, type: string) =>
    new UserError(`'${file}' is not a test configuration: ${what}: ${JSON.stringify(value)} is not ${type}`);
  if (recorded === undefined) {
    if (olderKey !== undefined && typeof olderKey !== 'string') throw bad('storeKey', olderKey, 'a string');
    const older: Recorded = { storeKey: olderKey ?? STORE_KEY };
    if (config.schedule) older.schedule = config.schedule;
    return { config, recorded: older };
  }
  if (recorded === null || typeof recorded !== 'object' || Array.isArray(recorded)) {
    throw bad('recorded', recorded, 'an object');
  }
  const { storeKey, schedule } = recorded as Record<string, unknown>;
  if (typeof storeKey !== 'string') throw bad('recorded.storeKey', storeKey, 'a string');
  const section: Recorded = { storeKey };
  if (schedule !== undefined) section.schedule = parseScheduledFaults(schedule, `'${file}' recorded.schedule`);
  return { config, recorded: section };
}

/** The configuration to run again (a replay, a shrink's candidates): the faults the run applied, given. */
export function rerunConfig({ config, recorded }: StoredRun): TestConfig {
  return recorded.schedule ? { ...config, schedule: recorded.schedule } : config;
}

/**
 * A file a flag names, or a run folder's test.json: its path and text. A missing or
 * unreadable one is one UserError line that begins with the flag (when one is given).
 */
export function readRunFile(path: string, flag?: string): { file: string; text: string } {
  const at = flag ? `${flag}: ` : '';
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = runFile(path, 'test');
  } catch {
    throw new UserError(`${at}no such run folder or file '${path}'`);
  }
  if (!existsSync(file)) throw new UserError(`${at}'${path}' has no test.json: give a run folder or its test.json`);
  try {
    return { file, text: readBounded(file, 'test configuration', MAX_TEST_JSON_BYTES) };
  } catch (err) {
    if (err instanceof UserError) throw new UserError(`${at}${err.message}`);
    throw new UserError(`${at}cannot read '${file}' (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/**
 * The most of a run folder's files that is read: each is a regular file under its limit
 * (util/regular-file.ts), so that a folder someone else made (a CI artifact) cannot hand a
 * reader /dev/zero or a file without end. Far above what a run writes: a test.json with a
 * long fault schedule is tens of kB, a results.json hundreds, a history of a million
 * operations 330 MB.
 */
export const MAX_TEST_JSON_BYTES = 16 * MiB;
export const MAX_RESULTS_JSON_BYTES = 64 * MiB;
export const MAX_HISTORY_BYTES = 1024 * MiB;

const readBounded = (path: string, what: string, maxBytes: number) =>
  readRegularFile(path, what, {
    maxBytes,
    fix: 'not a file a run writes: give the run folder lockchaos wrote',
  }).toString('utf8');

/** A stored run, read back: its folder, configuration, history and outcome (from results.json, or checked here). */
export interface LoadedRun extends RunOutcome {
  /** The folder as given. */
  dir: string;
  /** The configuration to run it again: its parameters, with the faults it applied. */
  config: TestConfig;
  recorded: Recorded;
  /** In time order; indices as stored in history.jsonl. */
  history: Op[];
  /** Why the run is incomplete, in words (undefined: it finished). */
  cutShort?: string;
  /** The checkers ran here (results.json missing or unreadable), not in the runner. */
  checkedHere: boolean;
  /** 1-based line number of a truncated last line that was left out. */
  droppedLine?: number;
}

function readText(path: string, what: string): string {
  try {
    return readBounded(path, what, MAX_TEST_JSON_BYTES);
  } catch (err) {
    if (err instanceof UserError) throw err;
    throw new UserError(
      `cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The run folders directly inside `dir` (a test's folder holds one per timestamp). */
function runsInside(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => existsSync(join(dir, name, RUN_FILES.test)))
      .sort();
  } catch {
    return [];
  }
}

/**
 * history.jsonl's text to ops. A last line that is not a complete JSON object and has no
 * newline after it was cut mid-write: it is left out and its line number returned. Any
 * other unreadable line is an error (HistoryError, a UserError), since the history after it
 * is intact and silently skipping it could hide the operation that matters.
 */
export function parseHistoryPrefix(text: string, source: string): { history: Op[]; droppedLine?: number } {
  const cut = text.lastIndexOf('\n');
  const ops = parseJsonl(text.slice(0, cut + 1), source);
  return finishPrefix(ops, text.slice(cut + 1), text.slice(0, cut + 1).split('\n').length, source);
}

/**
 * parseHistoryPrefix of a file, read in pieces: a large history's text (330 MB for a
 * million operations) is never whole in memory, only its operations. Each piece of text
 * is a few complete lines (PIECE_BYTES): a string that small is made in the young
 * generation and dies there, where a chunk's text (megabytes) went to the old generation,
 * and a million operations' chunks were 600 MB there for a full collection to find.
 */
export function readHistoryPrefix(path: string): {
  history: Op[];
  droppedLine?: number;
  fingerprint: HistoryFingerprint;
} {
  // A regular file within its limit: neither /dev/zero nor a FIFO nor a file that grows without end.
  const { fd, size } = openRegularFile(path, 'history');
  const tooLarge = () =>
    new UserError(
      `${path}: the history is ${sizeWords(Math.max(size, MAX_HISTORY_BYTES + 1))}, past the limit of ${sizeWords(MAX_HISTORY_BYTES)}: check it with lockchaos check --memory-limit, which bounds its reading`,
    );
  if (size > MAX_HISTORY_BYTES) {
    closeSync(fd);
    throw tooLarge();
  }
  const chunk = Buffer.allocUnsafe(1 << 24);
  const ops: Op[] = [];
  let line = 1;
  /** The bytes after the last newline read so far: the start of a line. */
  let carry = Buffer.alloc(0);
  let read = 0;
  const hash = createHash('sha256');
  /** Complete lines (ending with a newline): their ops. Split at newlines, UTF-8 decodes as the whole would. */
  const parseLines = (bytes: Buffer) => {
    const text = bytes.toString('utf8');
    parseJsonl(text, path, line, ops);
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) line++;
  };
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      read += n;
      if (read > MAX_HISTORY_BYTES) throw tooLarge();
      const data = chunk.subarray(0, n);
      hash.update(data);
      let at = 0;
      if (carry.length > 0) {
        const newline = data.indexOf(10);
        if (newline < 0) {
          carry = Buffer.concat([carry, data]);
          continue;
        }
        parseLines(Buffer.concat([carry, data.subarray(0, newline + 1)]));
        at = newline + 1;
      }
      while (at < n) {
        let newline = data.lastIndexOf(10, Math.min(at + PIECE_BYTES, n) - 1);
        // A line longer than a piece: it whole.
        if (newline < at) newline = data.indexOf(10, at + PIECE_BYTES);
        if (newline < 0) break;
        parseLines(data.subarray(at, newline + 1));
        at = newline + 1;
      }
      // Copied: the chunk is read into again.
      carry = Buffer.from(data.subarray(at));
    }
  } finally {
    closeSync(fd);
  }
  return {
    ...finishPrefix(ops, carry.toString('utf8'), line, path),
    fingerprint: { bytes: read, sha256: hash.digest('hex') },
  };
}

/** Bytes of complete lines decoded at once: well below V8's largest young-generation object. */
const PIECE_BYTES = 1 << 16;

/**
 * After the ops of every complete line: the text after the last newline, line number `line`.
 * A complete JSON object is the last op; anything else was cut mid-write and is left out.
 * Then the ops in time order.
 */
function finishPrefix(ops: Op[], last: string, line: number, source: string): { history: Op[]; droppedLine?: number } {
  let droppedLine: number | undefined;
  if (last.trim() !== '') {
    let complete = false;
    try {
      const parsed: unknown = JSON.parse(last);
      complete = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
    } catch {
      complete = false;
    }
    if (complete) parseJsonl(last, source, line, ops);
    else droppedLine = line;
  }
  // A finished run's history is in time order already: sort only a killed run's prefix.
  let ordered = true;
  for (let i = 1; i < ops.length && ordered; i++) ordered = ops[i - 1].time <= ops[i].time;
  const sorted = ordered
    ? ops
    : ops
        .map((op, position) => ({ op, position }))
        .sort((a, b) => a.op.time - b.op.time || a.position - b.position)
        .map((x) => x.op);
  return droppedLine === undefined ? { history: sorted } : { history: sorted, droppedLine };
}

/**
 * Whether the history ends with the runner's final read of the store: an ok read by a
 * process that issues nothing else, after which no write begins. A run killed before it
 * has only the clients' reads during the run, which say nothing about what was kept.
 */
function hasFinalRead(history: readonly Op[], storeKey: string): boolean {
  const pairs = pairLeniently(history).filter((p) => p.invoke.key === storeKey);
  const last = pairs.filter((p) => p.invoke.f === 'read' && p.completion?.type === 'ok').at(-1);
  if (!last) return false;
  const alone = pairs.every((p) => p === last || p.invoke.process !== last.invoke.process);
  const writeAfter = pairs.some((p) => p.invoke.f === 'write' && p.invoke.time > last.invoke.time);
  return alone && !writeAfter;
}

/** The checkers on a recorded prefix; without the final read, lost updates cannot tell (unknown). */
function checkPrefix(history: Op[], config: TestConfig, { storeKey }: Recorded): CheckResult[] {
  const results = checkRun(history, config, { storeKey });
  if (hasFinalRead(history, storeKey)) return results;
  return results.map((r) => (r.checker === 'lost-updates' ? lostUpdatesWithoutFinalRead(r) : r));
}

const cutLine = (line: number) => `history.jsonl line ${line}, the last, was cut mid-write and is left out`;

export function loadRun(dir: string): LoadedRun {
  if (!existsSync(dir)) throw new UserError(`no such folder: ${dir}`);
  if (!statSync(dir).isDirectory())
    throw new UserError(`${dir} is a file, not a run folder: give the folder that holds test.json and history.jsonl`);
  const testPath = runFile(dir, 'test');
  if (!existsSync(testPath)) {
    const runs = runsInside(dir);
    const hint = runs.length
      ? `; it holds ${runs.length} run${runs.length > 1 ? 's' : ''}, e.g. ${join(dir, runs.at(-1) as string)}`
      : ' (lockchaos run writes store/<test>/<timestamp>/)';
    throw new UserError(`${dir} is not a run folder: it has no test.json${hint}`);
  }
  const stored = parseTestJson(readText(testPath, 'the test configuration'), testPath);
  const { recorded } = stored;
  const config = rerunConfig(stored);
  const historyPath = runFile(dir, 'history');
  if (!existsSync(historyPath))
    throw new UserError(`${dir} is not a run folder: it has test.json but no history.jsonl`);
  const { history, droppedLine, fingerprint } = readHistoryPrefix(historyPath);
  refuseDeepOps(history, historyPath);

  const resultsPath = runFile(dir, 'results');
  let saved: ResultsRecord | undefined;
  let unreadable: string | undefined;
  if (existsSync(resultsPath)) {
    try {
      saved = readResults(resultsPath);
    } catch (err) {
      unreadable = (err as Error).message;
    }
  }
  const unchecked = saved?.unchecked;
  const was = saved?.history;
  const changed = was && !sameFingerprint(was, fingerprint) ? historyChanged(was, fingerprint) : undefined;
  // The interruption of the checking is over once checked here: the run itself ran as
  // configured. (Results written before whileChecking was recorded name it by its message.)
  const conditions = (saved?.conditions ?? []).filter((c) => !c.whileChecking && c.message !== unchecked);
  const base = { dir, config, recorded, history, conditions };
  const extra = droppedLine === undefined ? {} : { droppedLine };
  if (saved && unchecked === undefined && changed === undefined) {
    const cutShort = droppedLine !== undefined ? cutLine(droppedLine) : undefined;
    return {
      ...base,
      ...extra,
      results: saved.results,
      valid: saved.valid,
      ...(saved.timings ? { timings: saved.timings } : {}),
      ...(cutShort ? { cutShort } : {}),
      ...(saved.stoppedEarly ? { stoppedEarly: saved.stoppedEarly } : {}),
      ...(saved.coverage ? { coverage: saved.coverage } : {}),
      checkedHere: false,
    };
  }
  const results = checkPrefix(history, config, recorded);
  const valid = runVerdict(countedVerdict(results), conditions);
  const why =
    changed !== undefined
      ? changed
      : unchecked !== undefined
        ? 'the run was interrupted while checking'
        : unreadable !== undefined
          ? `results.json is unreadable (${unreadable})`
          : 'the run has no results.json: its runner was killed or failed before checking';
  const parts = [
    `${why}; checked here on the ${history.length} operations recorded`,
    droppedLine !== undefined ? cutLine(droppedLine) : '',
  ].filter(Boolean);
  const kept = {
    ...(saved?.timings ? { timings: saved.timings } : {}),
    ...(saved?.stoppedEarly ? { stoppedEarly: saved.stoppedEarly } : {}),
  };
  // A run interrupted while checking is complete: its checks, made here, are its verdict.
  const cut =
    unchecked !== undefined && droppedLine === undefined && changed === undefined ? {} : { cutShort: parts.join('; ') };
  return { ...base, ...extra, ...kept, results, valid, ...cut, checkedHere: true };
}
