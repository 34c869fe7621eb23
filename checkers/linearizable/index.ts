/**
 * The linearizability checker: is there a total order of the history's operations that
 * respects real time (an operation that completed before another was invoked comes first)
 * and that the model accepts?
 *
 * Semantics are Jepsen's and Knossos's: `fail` operations are removed; an `info` operation,
 * or one that never completed, may take effect at any time after its invocation, or never;
 * nemesis operations are ignored; a read's value is its ok completion's.
 *
 * P-compositionality: linearizability is local, so the history is split by key (op.key, or
 * the model's own partition) and each part is checked alone. Parts are searched in slices,
 * round robin, smallest first, so that one hard part cannot starve the others; the first
 * part found not linearizable ends the search. Past the time or memory budget the verdict is
 * `unknown`, naming the parts still open and how far each got.
 */
import { getHeapStatistics } from 'node:v8';
import { UserError } from '../../src/cli/errors.js';
import { HistoryError } from '../../src/history/errors.js';
import type { Op } from '../../src/history/op.js';
import { type PairedOp, pairOperations } from '../../src/history/pairs.js';
import { findModel, MODEL_NAMES } from '../models/index.js';
import {
  type AnyModel,
  type Model,
  type OpInput,
  type OpOutput,
  type PartOp,
  type Reduction,
  Rejection,
} from '../models/model.js';
import type { CheckResult, Validity } from '../result.js';
import { type Budget, type DeadEnd, PartSearch, type SearchOp, type SearchStatus } from './search.js';

export interface CheckOptions {
  /** The model's initial value (--initial). */
  initial?: unknown;
  /** Wall-clock budget for the whole check; default: none. */
  timeLimitMs?: number;
  /** Budget for the process's heap plus typed arrays; default 1 GiB. */
  memoryLimitBytes?: number;
  /** Search steps per part per round; smaller interleaves parts more finely. */
  sliceIterations?: number;
  /** Return the linearization found for each part (invocation indices in order). */
  witness?: boolean;
  /**
   * Check only the client operations with these f values, ignoring the rest (a lockchaos
   * run's history holds lock and store operations: ['acquire', 'release'] for the lock).
   * Default: every client operation must be one the model knows.
   */
  only?: readonly string[];
}

/** An operation as reports show it. */
export interface OpSummary {
  /** The invocation's index in the history. */
  index: number;
  /** The completion's index; absent for operations that never completed. */
  completionIndex?: number;
  process: number;
  f: string;
  key?: string;
  value?: unknown;
  result?: unknown;
  outcome: 'ok' | 'info' | 'pending';
  /** "op 12 (process 3: read → 5)" */
  text: string;
}

/** One configuration in which the search could go no further. */
export interface Configuration {
  /** The model state, described. */
  state: string;
  /** How many operations were linearized to get there. */
  linearized: number;
  /** The last of them, in order. */
  lastLinearized: OpSummary[];
  /** Operations called and not linearized (indefinite ones and ones concurrent with the failing op). */
  pending: OpSummary[];
  /** Why the failing operation cannot take effect here. */
  reason: string;
}

export interface Counterexample {
  /** The part (key) that is not linearizable; null for operations without a key. */
  key: string | null;
  /** The operation at which no linearization can go on: none takes it past its completion. */
  op: OpSummary;
  /** Why it cannot take effect (in the first configuration reached, or found without search). */
  reason: string;
  /**
   * The history is linearizable up to just before this index (the failing op's completion)
   * and not up to it: the smallest prefix that cannot be linearized ends here.
   */
  prefixEnd: number;
  /** The most operations of the part any order linearized before getting stuck. */
  linearizedBefore: number;
  /** Configurations the search reached at the failing op (up to 8), and why each ends. */
  configurations: Configuration[];
  /** Every operation named above, in history order. */
  involved: OpSummary[];
  /** The whole story in words, several lines. */
  describe: string;
}

export interface PartProgress {
  key: string | null;
  /** Required operations linearized (the most at any point), and how many there are. */
  linearized: number;
  total: number;
  /** All operations of the part, indefinite ones included. */
  operations: number;
}

export interface CheckStats {
  ms: number;
  /** Client operations considered: ok, info and never-completed (fails are removed). */
  operations: number;
  /** Client operations left out by options.only. */
  ignored: number;
  failed: number;
  nemesis: number;
  /** Indefinite operations the model's reduction dropped or made required. */
  indefinite: number;
  dropped: number;
  parts: number;
  iterations: number;
  cacheEntries: number;
  /** Peak heap used, sampled, and peak resident set size of the process. */
  peakHeapBytes: number;
  peakRssBytes: number;
}

export interface LinearizableResult extends CheckResult {
  model: string;
  counterexample?: Counterexample;
  /** When unknown: which budget ran out, and the parts not finished. */
  unknown?: { budget: 'time' | 'memory'; parts: PartProgress[] };
  stats: CheckStats;
  /** With options.witness and a valid verdict: each part's linearization, as invocation indices. */
  linearization?: { key: string | null; order: number[] }[];
}

const GiB = 1024 ** 3;
/** The search keeps this many configurations at the failing operation (see search.ts). */
const MAX_SHOWN_CONFIGURATIONS = 8;
const DEFAULT_SLICE = 1 << 18;

interface Part {
  key: string | null;
  paired: PairedOp[];
  ops: PartOp[];
  search: PartSearch<unknown> | undefined;
  progress: PartProgress;
  iterations: number;
  cacheEntries: number;
  /** Indefinite ops the model made required: the history position they must precede. */
  deadlines: Map<number, number>;
}

/**
 * Checks a history against a model (an object or a registered name). Throws HistoryError
 * (a UserError) for histories that break Jepsen's rules or the model's encoding.
 */
export function checkLinearizable(
  history: readonly Op[],
  model: AnyModel | string,
  options: CheckOptions = {},
): LinearizableResult {
  const started = performance.now();
  const m = resolveModel(model);
  const checker = `linearizable(${m.name})`;
  const pairing = pairOperations(history);
  const only = options.only ? new Set(options.only) : undefined;
  const considered = only ? pairing.ops.filter((p) => only.has(p.f)) : pairing.ops;
  const memory = new MemoryBudget(options.memoryLimitBytes ?? GiB);
  const deadline = started + (options.timeLimitMs ?? Number.POSITIVE_INFINITY);
  const budget: Budget = {
    deadline,
    check: () => (memory.exceeded() ? 'out-of-memory' : undefined),
    canAllocate: (bytes) => memory.fits(bytes),
  };

  const parts = splitParts(m, considered);
  const initial = m.init(options.initial);
  let indefinite = 0;
  let dropped = 0;
  // Violations the model sees without searching end the check at once: cheap, and exactly
  // the histories a search would have to exhaust to refute.
  let impossible: { part: Part; op: number; reason: string } | undefined;
  for (const part of parts) {
    for (const op of part.ops) if (!op.output.known) indefinite++;
    const found = m.impossible?.(part.ops, initial);
    if (found && (!impossible || part.ops[found.op].ret < impossible.part.ops[impossible.op].ret))
      impossible = { part, ...found };
  }
  for (const part of impossible ? [] : parts) {
    const reductions: Reduction[] = m.reduce ? m.reduce(part.ops, initial) : part.ops.map(() => 'keep');
    const searchOps: SearchOp[] = [];
    part.ops.forEach((op, tag) => {
      const r = reductions[tag];
      const known = op.output.known;
      if (!known && r === 'drop') {
        dropped++;
        return;
      }
      const deadline = !known && typeof r === 'number' ? r : undefined;
      if (deadline !== undefined) part.deadlines.set(tag, deadline);
      const ret = deadline ?? op.ret;
      searchOps.push({ input: op.input, output: op.output, call: op.call, ret, tag, flush: known && r === 'flush' });
    });
    part.search = new PartSearch(m, initial, searchOps);
    part.progress.total = part.search.requiredTotal;
    part.progress.operations = part.ops.length;
  }

  let verdict: Validity = true;
  let failedPart: Part | undefined;
  let stopped: 'time' | 'memory' | undefined;
  let iterations = 0;
  let cacheEntries = 0;
  const slice = options.sliceIterations ?? DEFAULT_SLICE;
  const witnesses: { key: string | null; order: number[] }[] = [];
  const active = impossible ? [] : [...parts].sort((a, b) => a.ops.length - b.ops.length);
  if (impossible) {
    verdict = false;
    failedPart = impossible.part;
  }
  rounds: while (active.length > 0) {
    for (let i = 0; i < active.length; ) {
      const part = active[i];
      const search = part.search as PartSearch<unknown>;
      const status: SearchStatus = search.run(slice, budget);
      part.progress.linearized = search.maxLinearized;
      part.iterations = search.iterations;
      part.cacheEntries = search.cacheEntries;
      if (status === 'running') {
        i++;
        continue;
      }
      if (status === 'linearizable') {
        if (options.witness)
          witnesses.push({ key: part.key, order: search.witness().map((tag) => part.paired[tag].invoke.index) });
        part.search = undefined; // its memo can go now
        active.splice(i, 1);
        continue;
      }
      if (status === 'illegal') {
        verdict = false;
        failedPart = part;
      } else {
        verdict = 'unknown';
        stopped = status === 'out-of-time' ? 'time' : 'memory';
      }
      break rounds;
    }
  }
  for (const part of parts) {
    iterations += part.iterations;
    cacheEntries += part.cacheEntries;
  }
  memory.exceeded(); // one last sample for the peaks

  const stats: CheckStats = {
    ms: Math.round((performance.now() - started) * 10) / 10,
    operations: considered.length,
    ignored: pairing.ops.length - considered.length,
    failed: pairing.failed,
    nemesis: pairing.nemesis,
    indefinite,
    dropped,
    parts: parts.length,
    iterations,
    cacheEntries,
    peakHeapBytes: memory.peakHeap,
    peakRssBytes: memory.peakRss,
  };
  const result: LinearizableResult = { checker, model: m.name, valid: verdict, summary: '', stats };
  const partWord = parts.length === 1 ? 'part' : 'parts';
  if (verdict === true) {
    if (options.witness) result.linearization = witnesses;
    result.summary = `linearizable: ${stats.operations} operations in ${parts.length} ${partWord} (${stats.ms} ms)`;
  } else if (verdict === false && failedPart) {
    const counterexample = impossible ? explainImpossible(m, impossible) : explain(m, failedPart, history);
    result.counterexample = counterexample;
    result.summary = `not linearizable: ${counterexample.op.text}${onKey(counterexample.key)} cannot take effect: ${counterexample.reason}`;
  } else {
    const open = active.map((p) => ({ ...p.progress }));
    result.unknown = { budget: stopped ?? 'time', parts: open };
    const limit =
      stopped === 'memory'
        ? `memory budget of ${Math.round(memory.limit / 2 ** 20)} MiB reached`
        : `time limit of ${formatSeconds(options.timeLimitMs ?? 0)} reached`;
    const where = open
      .slice(0, 3)
      .map(
        (p) =>
          `${p.key === null ? 'the history' : `key ${JSON.stringify(p.key)}`} (${p.linearized} of ${p.total} operations linearized)`,
      )
      .join(', ');
    result.summary = `unknown: ${limit} in ${where}${open.length > 3 ? ` and ${open.length - 3} more parts` : ''}`;
  }
  result.details = {
    model: m.name,
    stats,
    ...(result.counterexample ? { counterexample: result.counterexample } : {}),
    ...(result.unknown ? { unknown: result.unknown } : {}),
  };
  return result;
}

function resolveModel(model: AnyModel | string): Model<unknown> {
  if (typeof model !== 'string') return model;
  const found = findModel(model);
  if (!found) throw new UserError(`unknown model '${model}': choose one of ${MODEL_NAMES.join(', ')}`);
  return found;
}

function splitParts(m: Model<unknown>, paired: readonly PairedOp[]): Part[] {
  const byKey = new Map<string | null, Part>();
  for (const p of paired) {
    let input: OpInput = { f: p.f, process: p.process, value: p.invoke.value, index: p.invoke.index };
    if (p.key !== undefined) input.key = p.key;
    let output: OpOutput = { known: p.outcome === 'ok', value: p.outcome === 'ok' ? p.completion?.value : undefined };
    let key: string | undefined = p.key;
    if (m.partition) ({ key, input, output } = m.partition(input, output));
    const problem = m.validate(input, output);
    if (problem !== undefined) {
      const hint = m.fs.includes(input.f)
        ? ''
        : `; to check only the model's operations, give --only ${m.fs.join(',')}`;
      throw new HistoryError(`op ${p.invoke.index}: ${problem}${hint}`);
    }
    const k = key ?? null;
    let part = byKey.get(k);
    if (!part) {
      part = {
        key: k,
        paired: [],
        ops: [],
        search: undefined,
        progress: { key: k, linearized: 0, total: 0, operations: 0 },
        iterations: 0,
        cacheEntries: 0,
        deadlines: new Map(),
      };
      byKey.set(k, part);
    }
    part.paired.push(p);
    part.ops.push({ input, output, call: p.call, ret: p.ret });
  }
  return [...byKey.values()];
}

/** Process memory against the budget, and the peaks seen. */
class MemoryBudget {
  peakHeap = 0;
  peakRss = 0;
  /** V8's own heap cannot grow past its limit whatever the budget: stay well below it. */
  private readonly heapCap = getHeapStatistics().heap_size_limit * 0.85;

  constructor(readonly limit: number) {
    this.exceeded();
  }

  private used(): number {
    const mu = process.memoryUsage();
    if (mu.heapUsed > this.peakHeap) this.peakHeap = mu.heapUsed;
    if (mu.rss > this.peakRss) this.peakRss = mu.rss;
    if (mu.heapUsed > this.heapCap) return Number.POSITIVE_INFINITY;
    return mu.heapUsed + mu.arrayBuffers;
  }

  exceeded(): boolean {
    return this.used() > this.limit;
  }

  fits(bytes: number): boolean {
    return this.used() + bytes <= this.limit;
  }
}

/** " on key "k"" after an operation's text; nothing for the part of operations without a key. */
function onKey(key: string | null): string {
  return key === null ? '' : ` on key ${JSON.stringify(key)}`;
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

// ---------------------------------------------------------------------------------------------
// Counterexamples

function summarize(m: Model<unknown>, part: Part, tag: number): OpSummary {
  const p = part.paired[tag];
  const op = part.ops[tag];
  const summary: OpSummary = {
    index: p.invoke.index,
    process: p.process,
    f: p.f,
    outcome: p.outcome,
    text: `op ${p.invoke.index} (process ${p.process}: ${m.describeOp(op.input, op.output)}${p.outcome === 'ok' ? '' : `, ${p.outcome === 'info' ? 'ended as info' : 'never completed'}`})`,
  };
  if (p.completion) summary.completionIndex = p.completion.index;
  if (op.input.key !== undefined) summary.key = op.input.key;
  if (op.input.value !== undefined) summary.value = op.input.value;
  if (op.output.known && op.output.value !== undefined) summary.result = op.output.value;
  return summary;
}

function explain(m: Model<unknown>, part: Part, history: readonly Op[]): Counterexample {
  const search = part.search as PartSearch<unknown>;
  const failure = search.failure();
  const failTag = failure?.op ?? 0;
  const failing = summarize(m, part, failTag);
  const failingOp = part.ops[failTag];
  // An indefinite op the model made required fails at its deadline: the completion of the
  // operation that observed its effect.
  const deadline = part.deadlines.get(failTag);
  const prefixEnd =
    deadline !== undefined ? history[deadline].index : (part.paired[failTag].completion?.index ?? failing.index);
  const deadEnds: DeadEnd[] = failure?.deadEnds ?? [];
  const involved = new Map<number, OpSummary>([[failTag, failing]]);
  const note = (tag: number) => {
    let s = involved.get(tag);
    if (!s) {
      s = summarize(m, part, tag);
      involved.set(tag, s);
    }
    return s;
  };
  const configurations: Configuration[] = deadEnds.map((d) => {
    const state = search.stateOf(d.state);
    const stepped = m.step(state, failingOp.input, failingOp.output);
    const reason = stepped instanceof Rejection ? stepped.reason : 'taking effect here leads to a dead end later';
    return {
      state: m.describe(state),
      linearized: d.linearized,
      lastLinearized: d.tail.map(note),
      pending: d.pending.filter((t) => t !== failTag).map(note),
      reason,
    };
  });
  const key = part.key;
  const name = `op ${failing.index}`;
  const completed =
    deadline !== undefined
      ? `, which ended without an answer but must have taken effect by op ${prefixEnd} (nothing else explains what that operation saw),`
      : failing.completionIndex === undefined
        ? ''
        : `, completed at op ${failing.completionIndex}`;
  const more = configurations.length >= MAX_SHOWN_CONFIGURATIONS ? ' (at least; the first are shown)' : '';
  const lines = [
    `${failing.text}${onKey(key)}, invoked at op ${failing.index}${completed}, cannot be linearized.`,
    `Up to just before op ${prefixEnd} the history is linearizable; up to op ${prefixEnd} no order of its operations is: that is the shortest prefix that cannot be linearized (at most ${search.maxLinearized} of the part's ${search.requiredTotal} required operations could be ordered).`,
  ];
  if (configurations.length > 0) {
    lines.push(
      `Every order that gets as far as ${name} ends in ${configurations.length === 1 ? 'this configuration' : `one of these ${configurations.length} configurations${more}`}:`,
    );
    configurations.forEach((c, i) => {
      const last = c.lastLinearized.slice(-4).map((o) => o.text);
      const after =
        c.linearized === 0
          ? 'nothing linearized yet'
          : `${c.linearized} operation${c.linearized === 1 ? '' : 's'} linearized, ending with ${last.join(', ')}`;
      const pending = c.pending.map((o) => o.text).join(', ');
      lines.push(`  ${i + 1}. ${after}:`);
      lines.push(`     ${c.state}${pending === '' ? '' : `; not yet linearized: ${pending}`};`);
      lines.push(`     ${name} cannot take effect: ${c.reason}.`);
    });
  }
  return {
    key,
    op: failing,
    reason: configurations[0]?.reason ?? 'no order of the operations reaches it',
    prefixEnd,
    linearizedBefore: search.maxLinearized,
    configurations,
    involved: [...involved.values()].sort((a, b) => a.index - b.index),
    describe: lines.join('\n'),
  };
}

function explainImpossible(m: Model<unknown>, found: { part: Part; op: number; reason: string }): Counterexample {
  const { part, op, reason } = found;
  const failing = summarize(m, part, op);
  const prefixEnd = part.paired[op].completion?.index ?? failing.index;
  const key = part.key;
  const lines = [
    `${failing.text}${onKey(key)}, invoked at op ${failing.index}, completed at op ${prefixEnd}, cannot be linearized:`,
    `${reason}.`,
    `So no order of the operations explains the history up to op ${prefixEnd} (found without searching; an earlier violation may exist).`,
  ];
  return {
    key,
    op: failing,
    reason,
    prefixEnd,
    linearizedBefore: 0,
    configurations: [],
    involved: [failing],
    describe: lines.join('\n'),
  };
}
