/**
 * `lockchaos check FILE...`: check stored histories for linearizability, offline, with no
 * Docker. Each file is read (ours, Jepsen EDN, or a Jepsen log), checked against a model, and
 * reported: one line per file, plus the counterexample in words when a single file is not
 * linearizable, plus totals for several files. Exit 0 valid, 1 invalid, 2 unknown, 3 error
 * (an error in any file wins, then invalid, then unknown).
 */
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import type { LinearizableResult } from '../../checkers/linearizable/check-linearizable.js';
import {
  checkLinearizableParallel,
  MIN_OPERATIONS,
  PARALLEL_NODE_FLAGS,
} from '../../checkers/linearizable/parallel.js';
import { findModel, guessModel, MODEL_NAMES, MODELS } from '../../checkers/models/index.js';
import type { Model } from '../../checkers/models/linearizable-model.js';
import { exitCodeFor } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import {
  HISTORY_FORMATS,
  type HistoryFormat,
  historyFileSize,
  readHistoryFile,
  readingBytes,
} from '../history/read.js';
import { ReadingOverBudget } from '../history/reading-budget.js';
import { ReadingTimedOut } from '../history/reading-deadline.js';
import { nearestOr } from '../util/did-you-mean.js';
import { EXIT_ERROR, UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { plural } from '../util/plural.js';
import { printable, printableLines } from '../util/printable.js';
import { stamped } from '../version.js';
import { argsError } from './args.js';

const DEFAULT_TIME_LIMIT_S = 300;
const DEFAULT_MEMORY_LIMIT_MB = 1024;
const MiB = 2 ** 20;

/**
 * The shortest a file of MIN_OPERATIONS operations can be: two events each, of at least 20
 * bytes ("0 :invoke :read nil" and its line's end). Smaller files are checked in one thread.
 */
const MAY_USE_THREADS_BYTES = MIN_OPERATIONS * 2 * 20;

function help(): string {
  const width = Math.max(...MODEL_NAMES.map((n) => n.length));
  return [
    'Usage: lockchaos check FILE... [options]',
    '',
    'Checks each history file for linearizability against a model, offline (no Docker).',
    '',
    'Options:',
    '  --model M          the model to check against (default: guessed from the operations, see below):',
    ...MODEL_NAMES.map((n) => `                       ${n.padEnd(width)}  ${MODELS[n].description}`),
    `  --format F         the file format: ${HISTORY_FORMATS.join(', ')} (default: from the extension`,
    '                     .jsonl/.json, .edn, .log, else from the content)',
    "                       jsonl       lockchaos's history.jsonl, one operation as JSON per line",
    '                       edn         a Jepsen EDN history: a vector, list or bare stream of op maps',
    "                       jepsen-log  Jepsen's text lines 'process :type :f value', separated by tabs or spaces,",
    '                                   log prefixes allowed',
    '  --initial VALUE    the initial value of a register or store, as JSON (not JSON: taken as a string);',
    '                     default nil',
    `  --time-limit S     give up after S seconds, answering unknown (default ${DEFAULT_TIME_LIMIT_S}; applies to each file,`,
    '                     reading it included)',
    `  --memory-limit MB  give up past MB MiB, answering unknown (default ${DEFAULT_MEMORY_LIMIT_MB}); each file, and each part`,
    "                     (key) of it, has its own: reading the file plus the part's search (states, memo, stack).",
    '                     A file larger is not read (nor one past 512 MiB, nor anything but a regular file), and',
    '                     reading, in every format, stops once its text and operations so far are past it.',
    '                     It bounds what the check holds, not the process: Node, worker threads and garbage not',
    '                     yet collected come on top (600k events: peak 235 MiB at 100, 392 at 200, 591 at 400;',
    '                     a 65 MB EDN history: 187 MiB at 100, 455 at 200 on two threads)',
    '  --threads N        check the keys on N threads at most, this one and N-1 workers, whatever the size',
    '                     of the file (1: this thread alone); default: one per core for a file of',
    `                     ${MIN_OPERATIONS.toLocaleString('en-US')} operations or more, else this thread alone. The verdict and the`,
    '                     reported key are the same on any number of threads, and so, within a little, is the',
    '                     search (the keys take turns of doubling steps: an invalid key is found early)',
    '  --only F,F...      check only the client operations with these f values, ignoring the others',
    '                     (a lockchaos run history holds lock and store operations: --only acquire,release);',
    '                     a name the history lacks is named in a warning, one no model knows is an error',
    '  --json             print one JSON object (the lockchaos version, the verdict and exit code, the',
    '                     totals, and per file: file, verdict, ms, model, summary, details)',
    '  -h, --help         print this help',
    '',
    'Model guessing, from the operations f: acquire/release -> mutex; get/put/append -> kv; cas -> cas-register;',
    'writes whose values are all [value, token] -> fenced-register; other reads and writes -> register;',
    'operations of none of these are an error.',
    '',
    "Semantics are Jepsen's: fail operations are removed; info operations and ones that never completed may",
    'take effect at any time after their invocation, or never; nemesis operations are ignored. A process',
    'that issues again after info, or an ok with no invocation, is an error in the history. Real-time order',
    "is the file's order. Operations are split by key (op.key; for kv also Jepsen's [k v] values) and each",
    `key is checked alone, on worker threads for large histories (a file of ${MAY_USE_THREADS_BYTES / 1e6} MB or more is checked in a`,
    "node started again with --single-threaded-gc, so that V8's collector leaves those threads their cores);",
    'the keys take turns of doubling search steps, so a hard key never holds up the others, and the',
    'first key found not linearizable in that order of turns (fewest steps, then smallest first) is the one',
    'reported, on any number of threads; under --time-limit every key has had its turns before any runs',
    'far ahead, so a hard key does not hide a violation in another as unknown. A file with no operations, or',
    'none that --only picks, is an error:',
    'nothing was checked. For kv, a get of an absent key may answer nil or "". An ok read of nil means',
    'the register holds nil (Knossos takes it as "not known", in any state: with --initial other than',
    'nil such reads are impossible here, not there).',
    '',
    '"op N" names an operation by its index: the file\'s :index or "index" when it has one, else its place',
    "among the file's operations (invocations and completions), from 0. With several files, one line each",
    '(an error too, on standard output); the explanation of a violation is printed for a single file (or',
    'in --json details).',
    '',
    'Exit codes: 0 valid, 1 invalid, 2 unknown (a budget ran out), 3 error (unreadable file, bad option).',
    'With several files: 3 if any file has an error, else 1 if any is invalid, else 2 if any is unknown.',
  ].join('\n');
}

interface Options {
  files: string[];
  model: Model<unknown> | undefined;
  format: HistoryFormat | undefined;
  initial: unknown;
  timeLimitMs: number;
  memoryLimitBytes: number;
  only: string[] | undefined;
  /** --threads; undefined: checkLinearizableParallel's default. */
  threads: number | undefined;
  json: boolean;
}

function parseOptions(argv: string[]): Options | 'help' {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw argsError(err, CHECK_OPTIONS, 'check');
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  if (positionals.length === 0)
    throw new UserError(`give one or more history files to check (see ${cliCommand} check --help)`);
  let model: Model<unknown> | undefined;
  if (values.model !== undefined) {
    model = findModel(values.model);
    if (!model)
      throw new UserError(
        `unknown model '${values.model}'${nearestOr(values.model, MODEL_NAMES, `choose one of ${MODEL_NAMES.join(', ')}`)}`,
      );
  }
  let format: HistoryFormat | undefined;
  if (values.format !== undefined) {
    if (!(HISTORY_FORMATS as readonly string[]).includes(values.format)) {
      throw new UserError(
        `unknown format '${values.format}'${nearestOr(values.format, HISTORY_FORMATS, `choose one of ${HISTORY_FORMATS.join(', ')}`)}`,
      );
    }
    format = values.format as HistoryFormat;
  }
  let initial: unknown;
  if (values.initial !== undefined) {
    try {
      initial = JSON.parse(values.initial);
    } catch {
      initial = values.initial;
    }
  }
  return {
    files: positionals,
    model,
    format,
    initial,
    timeLimitMs: positiveNumber(values['time-limit'], '--time-limit', 'seconds', DEFAULT_TIME_LIMIT_S) * 1000,
    memoryLimitBytes: positiveNumber(values['memory-limit'], '--memory-limit', 'MiB', DEFAULT_MEMORY_LIMIT_MB) * MiB,
    only:
      values.only === undefined
        ? undefined
        : values.only
            .split(',')
            .map((f) => f.trim().replace(/^:/, ''))
            .filter((f) => f !== ''),
    threads: wholeNumber(values.threads, '--threads'),
    json: values.json === true,
  };
}

const CHECK_OPTIONS = {
  model: { type: 'string', short: 'm' },
  format: { type: 'string' },
  initial: { type: 'string' },
  'time-limit': { type: 'string' },
  'memory-limit': { type: 'string' },
  only: { type: 'string' },
  threads: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: CHECK_OPTIONS });
}

function positiveNumber(text: string | undefined, flag: string, unit: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new UserError(`${flag} must be a positive number of ${unit}, got '${text}'`);
  return n;
}

/** A whole number of at least 1, or undefined when not given. */
function wholeNumber(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1 || text.trim() === '')
    throw new UserError(`${flag} must be a whole number, 1 or more, got '${text}'`);
  return n;
}

type FileOutcome =
  | { file: string; result: LinearizableResult; guessed?: string; format: HistoryFormat }
  | { file: string; unknown: string }
  | { file: string; error: string };

async function checkFile(file: string, options: Options): Promise<FileOutcome> {
  let guessed: string | undefined;
  // Both limits hold from the first byte read: reading counts against the time limit, and
  // the reader stops at the memory budget.
  const deadline = performance.now() + options.timeLimitMs;
  try {
    // Reading counts in the memory budget: a file larger than it is not even read (nor
    // anything but a regular file: /dev/zero has no size and no end).
    const size = historyFileSize(file);
    if (size > options.memoryLimitBytes) return { file, unknown: overBudget(size, options) };
    const { history, format, textLength } = readHistoryFile(file, options.format, {
      maxBytes: options.memoryLimitBytes,
      fix: 'give a larger --memory-limit',
      deadline,
      budgetBytes: options.memoryLimitBytes,
    });
    const baseBytes = readingBytes(textLength, history.length);
    const absent = requireOperations(history, options.only);
    if (absent) console.error(printable(`lockchaos check: warning: ${file}: ${absent}`));
    if (baseBytes > options.memoryLimitBytes) return { file, unknown: overBudget(baseBytes, options) };
    let model = options.model;
    if (!model) {
      const only = options.only;
      const guess = guessModel(only ? history.filter((op) => only.includes(op.f)) : history);
      model = guess.model;
      guessed = guess.why;
    }
    const timeLimitMs = deadline - performance.now();
    if (timeLimitMs <= 0) return { file, unknown: timeUp(options) };
    const result = await checkLinearizableParallel(history, model, {
      initial: options.initial,
      timeLimitMs,
      memoryLimitBytes: options.memoryLimitBytes,
      baseBytes,
      only: options.only,
      // Asked for: on that many threads whatever the size.
      ...(options.threads === undefined ? {} : { threads: options.threads, minOperations: 0 }),
    });
    return guessed === undefined ? { file, result, format } : { file, result, format, guessed };
  } catch (err) {
    if (err instanceof ReadingTimedOut) return { file, unknown: timeUp(options) };
    if (err instanceof ReadingOverBudget) return { file, unknown: overBudget(err.bytes, options) };
    if (err instanceof UserError) {
      // A history the guessed model does not fit: say it was a guess.
      const why = guessed === undefined ? '' : ` (the model was guessed from its ${guessed}: give --model)`;
      return { file, error: `${err.message.startsWith(file) ? err.message : `${file}: ${err.message}`}${why}` };
    }
    throw err;
  }
}

function timeUp(options: Options): string {
  return `unknown: time limit of ${Number((options.timeLimitMs / 1000).toPrecision(6))} s reached reading the history; give a larger --time-limit`;
}

function overBudget(bytes: number, options: Options): string {
  return `unknown: memory budget of ${mib(options.memoryLimitBytes)} reached reading the history (${mib(bytes)}); give a larger --memory-limit`;
}

/**
 * Nothing checked is not valid: a history without client operations, or none that --only
 * picks, is an error. Returns a warning for names of --only that the history lacks.
 */
function requireOperations(history: readonly Op[], only: readonly string[] | undefined): string | undefined {
  const fs = new Set<string>();
  for (const op of history) if (op.process !== 'nemesis') fs.add(op.f);
  if (fs.size === 0)
    throw new UserError(
      'the history has no client operations, so nothing would be checked: give a history that records some',
    );
  // A name that neither the history nor any model knows is a typo (relase): ignored, it
  // left release out of the check, and a valid history read INVALID.
  const unknown = only?.filter((f) => !fs.has(f) && !MODEL_NAMES.some((m) => MODELS[m].fs.includes(f))) ?? [];
  if (unknown.length > 0)
    throw new UserError(
      `--only names ${unknown.join(', ')}, an operation neither the history nor any model has: give some of the history's operations (${[...fs].sort().join(', ')})`,
    );
  if (only && !only.some((f) => fs.has(f)))
    throw new UserError(
      `--only ${only.join(',')} picks none of the history's operations (${[...fs].sort().join(', ')}): give some of those`,
    );
  // A name some model knows but the history lacks (--only acquire,release,get on a lock
  // history): not an error (a run may have no write), but not passed over in silence.
  const absent = only?.filter((f) => !fs.has(f)) ?? [];
  return absent.length > 0
    ? `--only names ${absent.join(', ')}, which the history does not have: checked its ${only?.filter((f) => fs.has(f)).join(', ')} operations alone`
    : undefined;
}

const VERDICT = { true: 'valid', false: 'invalid', unknown: 'unknown' } as const;

/** Whole MiB; under one, KiB (a small check is not "0 MiB", which reads as not measured). */
function mib(bytes: number): string {
  return bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${Math.round(bytes / MiB)} MiB`;
}

function line(outcome: FileOutcome): string {
  if ('error' in outcome) return `error    ${outcome.error}`;
  if ('unknown' in outcome) return `unknown  ${outcome.file}: ${outcome.unknown}`;
  const { file, result, guessed } = outcome;
  const s = result.stats;
  const facts = [
    `${result.model}${guessed ? ` (guessed: ${guessed})` : ''}`,
    `${s.operations} operations${s.ignored > 0 ? ` (${s.ignored} others ignored)` : ''}`,
    `${s.parts} ${s.parts === 1 ? 'part' : 'parts'}${s.threads > 0 ? ` on ${s.threads} threads` : ''}`,
    `${s.ms} ms`,
    `memory ${mib(s.peakBudgetBytes)}`,
  ];
  return `${VERDICT[String(result.valid) as keyof typeof VERDICT].padEnd(8)} ${file}: ${result.summary} [${facts.join(', ')}]`;
}

function jsonOf(outcome: FileOutcome): object {
  if ('error' in outcome) return { file: outcome.file, verdict: 'error', valid: null, error: outcome.error };
  if ('unknown' in outcome)
    return { file: outcome.file, verdict: 'unknown', valid: 'unknown', summary: outcome.unknown };
  const { file, result, guessed, format } = outcome;
  return {
    file,
    verdict: VERDICT[String(result.valid) as keyof typeof VERDICT],
    valid: result.valid,
    ms: result.stats.ms,
    format,
    model: result.model,
    ...(guessed ? { modelGuessedFrom: guessed } : {}),
    checker: result.checker,
    summary: result.summary,
    details: result.details,
  };
}

/**
 * The node flags this check wants (see PARALLEL_NODE_FLAGS): when a file is large enough to
 * be checked on threads, on a machine with cores to give them. Bad options want none: the
 * check itself reports them.
 */
export function checkNodeFlags(argv: string[]): readonly string[] {
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch {
    return [];
  }
  if (options === 'help' || options.threads === 1) return [];
  if (options.threads !== undefined) return PARALLEL_NODE_FLAGS;
  if (availableParallelism() < 2) return [];
  const large = options.files.some((file) => {
    try {
      return historyFileSize(file) >= MAY_USE_THREADS_BYTES;
    } catch {
      return false;
    }
  });
  return large ? PARALLEL_NODE_FLAGS : [];
}

export async function checkCommand(argv: string[]): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (err) {
    if (err instanceof UserError) {
      console.error(printable(`lockchaos check: ${err.message}`));
      return EXIT_ERROR;
    }
    throw err;
  }
  if (options === 'help') {
    console.log(help());
    return 0;
  }
  const started = performance.now();
  const outcomes: FileOutcome[] = [];
  for (const file of options.files) {
    const outcome = await checkFile(file, options);
    outcomes.push(outcome);
    // Every line printable: a history's names and values (and a file's name) reach them, and
    // a hostile history must not move the cursor, recolour the terminal or hide text. The
    // JSON stays JSON of the same values (C1 controls and the like as \u escapes).
    if (options.json) {
      // Printed once every file is checked, in one object (below).
    } else if ('error' in outcome && options.files.length === 1) {
      console.error(printable(`lockchaos check: ${outcome.error}`));
    } else {
      console.log(printable(line(outcome)));
      if (options.files.length === 1 && 'result' in outcome && outcome.result.counterexample) {
        console.log(
          printableLines(
            outcome.result.counterexample.describe
              .split('\n')
              .map((l) => `  ${l}`)
              .join('\n'),
          ),
        );
      }
    }
  }
  const errors = outcomes.filter((o) => 'error' in o).length;
  const verdicts = outcomes.flatMap((o) =>
    'result' in o ? [o.result.valid] : 'unknown' in o ? ['unknown' as const] : [],
  );
  const count = (v: boolean | 'unknown') => verdicts.filter((x) => x === v).length;
  if (!options.json && options.files.length > 1) {
    const peak = Math.max(0, ...outcomes.flatMap((o) => ('result' in o ? [o.result.stats.peakBudgetBytes] : [])));
    console.log(
      `${options.files.length} files: ${count(true)} valid, ${count(false)} invalid, ${count('unknown')} unknown, ${plural(errors, 'error')} (${Math.round(performance.now() - started)} ms, peak memory ${mib(peak)} per file)`,
    );
  }
  const exitCode =
    errors > 0 ? EXIT_ERROR : count(false) > 0 ? exitCodeFor(false) : count('unknown') > 0 ? exitCodeFor('unknown') : 0;
  if (options.json) {
    // One object, stamped as every --json of lockchaos is: what wrote it, then the verdict.
    const verdict = errors > 0 ? 'error' : count(false) > 0 ? 'invalid' : count('unknown') > 0 ? 'unknown' : 'valid';
    const envelope = stamped({
      verdict,
      exitCode,
      totals: {
        files: options.files.length,
        valid: count(true),
        invalid: count(false),
        unknown: count('unknown'),
        errors,
      },
      files: outcomes.map(jsonOf),
    });
    console.log(printable(JSON.stringify(envelope)));
  }
  return exitCode;
}
