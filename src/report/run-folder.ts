/**
 * Reading a stored run folder for reports: test.json, history.jsonl and results.json.
 *
 * A run whose runner was killed leaves test.json and a history prefix: in arrival order
 * (the runner re-sorts only at the end), possibly with a last line cut mid-write, and no
 * results.json. Such a run is still worth a report: the cut line is left out (said so),
 * the prefix is put in time order (keeping each op's stored index, so that "op #N" still
 * names line N+1 of history.jsonl), and the checkers run here on what was recorded.
 *
 * Every problem with the input is a UserError with one line that names it.
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { lostUpdatesWithoutFinalRead } from '../../checkers/lost-updates.js';
import { type CheckResult, countedVerdict, type Validity } from '../../checkers/result.js';
import { checkRun } from '../../workloads/check-run.js';
import { parseJsonl } from '../history/jsonl.js';
import type { Op } from '../history/op.js';
import { pairLeniently } from '../history/pairs.js';
import { type RunCondition, runVerdict } from '../runner/conditions.js';
import { parseStoredConfig, type StoredTestConfig, type TestConfig } from '../runner/config.js';
import type { StoppedEarly } from '../runner/run.js';
import { MAX_DEPTH, nestedDeeperThan } from '../util/depth.js';
import { UserError } from '../util/errors.js';

export interface LoadedRun {
  /** The folder as given. */
  dir: string;
  config: TestConfig;
  /** In time order; indices as stored in history.jsonl. */
  history: Op[];
  results: CheckResult[];
  valid: Validity;
  timings?: { totalS: number; clusterS: number };
  /** How the run did not run as configured, as the runner recorded it (empty: it did). */
  conditions: RunCondition[];
  /** Why the run is incomplete, in words (undefined: it finished). */
  cutShort?: string;
  /** --stop-on-violation ended the workload early: when, and on what. */
  stoppedEarly?: StoppedEarly;
  /** The checkers ran here (results.json missing or unreadable), not in the runner. */
  checkedHere: boolean;
  /** 1-based line number of a truncated last line that was left out. */
  droppedLine?: number;
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new UserError(
      `cannot read ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The run folders directly inside `dir` (a test's folder holds one per timestamp). */
function runsInside(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => existsSync(join(dir, name, 'test.json')))
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
 * million operations) is never whole in memory, only its operations.
 */
export function readHistoryPrefix(path: string): { history: Op[]; droppedLine?: number } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw new UserError(
      `cannot read the history ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const decoder = new StringDecoder('utf8');
  const chunk = Buffer.allocUnsafe(1 << 24);
  const ops: Op[] = [];
  let line = 1;
  let rest = '';
  try {
    for (let n = readSync(fd, chunk); n > 0; n = readSync(fd, chunk)) {
      const text = rest + decoder.write(chunk.subarray(0, n));
      const cut = text.lastIndexOf('\n');
      if (cut < 0) {
        rest = text;
        continue;
      }
      const lines = text.slice(0, cut + 1);
      parseJsonl(lines, path, line, ops);
      for (let i = lines.indexOf('\n'); i >= 0; i = lines.indexOf('\n', i + 1)) line++;
      rest = text.slice(cut + 1);
    }
    rest += decoder.end();
  } finally {
    closeSync(fd);
  }
  return finishPrefix(ops, rest, line, path);
}

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
function checkPrefix(history: Op[], config: StoredTestConfig): CheckResult[] {
  const { storeKey } = config;
  const results = checkRun(history, config, { storeKey });
  if (hasFinalRead(history, storeKey)) return results;
  return results.map((r) => (r.checker === 'lost-updates' ? lostUpdatesWithoutFinalRead(r) : r));
}

const cutLine = (line: number) => `history.jsonl line ${line}, the last, was cut mid-write and is left out`;

export function loadRun(dir: string): LoadedRun {
  if (!existsSync(dir)) throw new UserError(`no such folder: ${dir}`);
  if (!statSync(dir).isDirectory())
    throw new UserError(`${dir} is a file, not a run folder: give the folder that holds test.json and history.jsonl`);
  const testPath = join(dir, 'test.json');
  if (!existsSync(testPath)) {
    const runs = runsInside(dir);
    const hint = runs.length
      ? `; it holds ${runs.length} run${runs.length > 1 ? 's' : ''}, e.g. ${join(dir, runs.at(-1) as string)}`
      : ' (lockchaos run writes store/<test>/<timestamp>/)';
    throw new UserError(`${dir} is not a run folder: it has no test.json${hint}`);
  }
  const config = parseStoredConfig(readText(testPath, 'the test configuration'), testPath);
  const historyPath = join(dir, 'history.jsonl');
  if (!existsSync(historyPath))
    throw new UserError(`${dir} is not a run folder: it has test.json but no history.jsonl`);
  const { history, droppedLine } = readHistoryPrefix(historyPath);
  // An op's other fields are numbers and strings: only its value can nest (one level below the op).
  const deep = history.find((op) => nestedDeeperThan(op.value, MAX_DEPTH - 1));
  if (deep) {
    throw new UserError(
      `${historyPath}: op #${deep.index} nests more than ${MAX_DEPTH} levels deep: not a lockchaos history (its values are flat sets and grants)`,
    );
  }

  const resultsPath = join(dir, 'results.json');
  let stored:
    | {
        valid: Validity;
        results: CheckResult[];
        timings?: LoadedRun['timings'];
        conditions?: RunCondition[];
        stoppedEarly?: StoppedEarly;
        /** Interrupted while checking (the condition's message): checked here instead. */
        unchecked?: string;
      }
    | undefined;
  let unreadable: string | undefined;
  if (existsSync(resultsPath)) {
    try {
      const parsed = JSON.parse(readFileSync(resultsPath, 'utf8')) as typeof stored;
      if (!parsed || !Array.isArray(parsed.results)) throw new Error('no results list');
      if (nestedDeeperThan(parsed)) throw new Error(`nested more than ${MAX_DEPTH} levels deep`);
      stored = parsed;
    } catch (err) {
      unreadable = (err as Error).message;
    }
  }
  const unchecked = typeof stored?.unchecked === 'string' ? stored.unchecked : undefined;
  // The interruption of the checking is over once checked here: the run itself ran as configured.
  const conditions = (Array.isArray(stored?.conditions) ? stored.conditions : []).filter(
    (c) => c.message !== unchecked,
  );
  const base = { dir, config, history, conditions };
  const extra = droppedLine === undefined ? {} : { droppedLine };
  if (stored && unchecked === undefined) {
    const cutShort = droppedLine !== undefined ? cutLine(droppedLine) : undefined;
    return {
      ...base,
      ...extra,
      results: stored.results,
      valid: stored.valid ?? countedVerdict(stored.results),
      ...(stored.timings ? { timings: stored.timings } : {}),
      ...(cutShort ? { cutShort } : {}),
      ...(stored.stoppedEarly ? { stoppedEarly: stored.stoppedEarly } : {}),
      checkedHere: false,
    };
  }
  const results = checkPrefix(history, config);
  const valid = runVerdict(countedVerdict(results), conditions);
  const why =
    unchecked !== undefined
      ? 'the run was interrupted while checking'
      : unreadable !== undefined
        ? `results.json is unreadable (${unreadable})`
        : 'the run has no results.json: its runner was killed or failed before checking';
  const parts = [
    `${why}; checked here on the ${history.length} operations recorded`,
    droppedLine !== undefined ? cutLine(droppedLine) : '',
  ].filter(Boolean);
  const recorded = {
    ...(stored?.timings ? { timings: stored.timings } : {}),
    ...(stored?.stoppedEarly ? { stoppedEarly: stored.stoppedEarly } : {}),
  };
  // A run interrupted while checking is complete: its checks, made here, are its verdict.
  const cut = unchecked !== undefined && droppedLine === undefined ? {} : { cutShort: parts.join('; ') };
  return { ...base, ...extra, ...recorded, results, valid, ...cut, checkedHere: true };
}
