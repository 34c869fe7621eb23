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
 * the model's own partition) and each part is checked alone (part.ts). The parts are
 * searched in rounds of doubling steps, round robin (search-rounds.ts), so that one hard part
 * cannot starve the others and a violation anywhere is found early; here in one thread,
 * where the first part found not linearizable ends the check; parallel.ts takes the same
 * turns on several threads, with the same result.
 *
 * Which violation is reported does not depend on which part or thread finished first: it is
 * the part found not linearizable earliest in the rounds, counted in search steps, not time
 * (search-rounds.ts). A violation found is never hidden by a budget that ran out elsewhere: the
 * verdict is `invalid` when any part is. Past the time budget (the whole check's) or a
 * part's memory budget (each part its own), a part is undecided, and without a violation
 * the verdict is `unknown`, naming those parts and how far each got.
 */

import { getHeapStatistics } from 'node:v8';
import type { Op } from '../../src/history/op.js';
import { type PairedOp, type Pairing, visitOperations } from '../../src/history/pairs.js';
import { UserError } from '../../src/util/errors.js';
import { findModel, MODEL_NAMES } from '../models/index.js';
import type { AnyModel, Model } from '../models/linearizable-model.js';
import type { CheckResult, Validity } from '../result.js';
import { buffers } from './buffers.js';
import { type Counterexample, explainImpossible, onKey } from './explain.js';
import { PartCheck, type PartOutcome, type PartProgress } from './part.js';
import { now } from './search-clock.js';

export { Decided } from './search-rounds.js';

import { Decided, FIRST_STEPS, precheckAt, precheckedFirst } from './search-rounds.js';
import { type Part, Splitter } from './split.js';

export type { Configuration, Counterexample, OpSummary } from './explain.js';
export type { PartProgress } from './part.js';

export interface CheckOptions {
  /** The model's initial value (--initial). */
  initial?: unknown;
  /** Wall-clock budget for the whole check; default: none. */
  timeLimitMs?: number;
  /**
   * Memory budget of each part: its search's own memory (states, memo, stack) plus
   * `baseBytes`; default 1 GiB.
   */
  memoryLimitBytes?: number;
  /** Memory already spent on this history (reading it), counted in each part's budget. */
  baseBytes?: number;
  /**
   * Search steps per part in the first round (search-rounds.ts; doubling each round after); smaller
   * interleaves parts more finely. Default FIRST_STEPS. Which violation is reported depends
   * on it, as on the history alone otherwise.
   */
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
  /**
   * Search steps, over all parts (those cut short by a violation found elsewhere too), as the
   * one-thread schedule searches them: the same on any number of threads (Decided.counted).
   */
  iterations: number;
  /**
   * Steps threads searched past the one-thread schedule and discarded once a violation
   * earlier in it was found; not in `iterations`. 0 on one thread; on several, the work
   * the threads' overlap cost, and it varies from run to run.
   */
  discardedIterations: number;
  /**
   * Steps searched again for the counterexamples of illegal parts whose search gave up orders
   * early (part.ts: PartCheck.finish); not in `iterations`.
   */
  counterexampleIterations: number;
  cacheEntries: number;
  /** The most memory one part held against its budget: reading the history plus its search. */
  peakBudgetBytes: number;
  /**
   * Peak heap used (this thread's, sampled), and the process's peak resident set size so far
   * (getrusage: with an earlier check's peak, in one process).
   */
  peakHeapBytes: number;
  peakRssBytes: number;
  /** Threads the parts were checked on, this one and its workers; 0 when in this thread alone. */
  threads: number;
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

/**
 * Under a time limit, when a turn starting at `start` has had its share of the time left
 * before `deadline`: `turns` (this one included) left in the round, taken `threads` at a
 * time. Infinity without a limit (and so no turn ends by the clock: the schedule is steps
 * alone). A large part's first turn is long (search-rounds.ts, LARGE_PART): this way hard large
 * parts first in check order still leave a later part its turn before the limit, and its
 * violation is found, not hidden as unknown.
 */
export function shareEnd(start: number, deadline: number, turns: number, threads = 1): number {
  // Without a limit, never: and Infinity - Infinity would be NaN (a turn would end at once).
  if (deadline === Number.POSITIVE_INFINITY) return deadline;
  return start + Math.max(0, deadline - start) / Math.max(1, Math.ceil(turns / threads));
}

/** A history made ready for checking: its parts in check order, and what the pre-check found. */
export interface Prepared {
  started: number;
  model: Model<unknown>;
  initial: unknown;
  /** Smallest first, then by first operation: the check order (search-rounds.ts). */
  parts: Part[];
  /**
   * Per part: 1 once the model's pre-check has run on it (search-rounds.ts: precheckedFirst,
   * precheckAt), or once it is found linearizable: then it needs none (a pre-check finds only
   * operations no linearization has).
   */
  prechecked: Uint8Array;
  /** The parts' operations the pre-check found impossible so far: once one is, no search goes on. */
  found: Map<number, Impossible>;
  /** Of those, the one reported (reportImpossible: every part pre-checked by then). */
  impossible?: Counterexample;
  options: CheckOptions;
  deadline: number;
  memoryLimitBytes: number;
  stats: Pick<CheckStats, 'operations' | 'ignored' | 'failed' | 'nemesis' | 'indefinite' | 'parts'>;
  peakHeapBytes: number;
  peakRssBytes: number;
}

/**
 * Checks a history against a model (an object or a registered name), in this thread. Throws
 * HistoryError (a UserError) for histories that break Jepsen's rules or the model's encoding.
 */
export function checkLinearizable(
  history: readonly Op[],
  model: AnyModel | string,
  options: CheckOptions = {},
): LinearizableResult {
  return searchInThread(prepare(history, model, options));
}

/**
 * checkLinearizable of a history already paired strictly (pairOperations, or strictSubset of
 * a run's one pairing): a run checks its lock and its store from the same pairing.
 */
export function checkLinearizablePaired(
  pairing: Pairing,
  model: AnyModel | string,
  options: CheckOptions = {},
): LinearizableResult {
  return searchInThread(preparePaired(pairing, model, options, now()));
}

/**
 * The parts searched in this thread, in the rounds of search-rounds.ts: each part open searches
 * its round's steps in turn, parts in check order, until every part is decided or one is
 * found not linearizable, which ends the check (the parts before it in the round have had
 * their turn; the parts after it could only be decided later). A part's search is made at
 * its first turn and let go once it is decided, its arrays handed on to the next (buffers.ts).
 * A part not pre-checked before the search (search-rounds.ts: precheckedFirst) is pre-checked once
 * its search reaches precheckAt undecided, and an impossible operation ends the search;
 * before the verdict every part not found linearizable is pre-checked, so that an
 * impossible operation anywhere is it.
 */
export function searchInThread(prepared: Prepared): LinearizableResult {
  const decided = newDecided(prepared);
  const checks: (PartCheck | undefined)[] = new Array(prepared.parts.length);
  let open = prepared.parts.map((_, i) => i);
  for (let round = 0; open.length > 0 && !decided.best && prepared.found.size === 0; round++) {
    for (const [k, i] of open.entries()) {
      if (!checks[i]) {
        checks[i] = newPartCheck(prepared, prepared.parts[i], prepared.deadline);
        // Pre-checked on the way (its objects are built for the search) if the search has not decided it by then.
        if (prepared.prechecked[i] === 0)
          checks[i].due(precheckAt(prepared.parts[i].size), () => precheckHere(prepared, i));
      }
      const check = checks[i];
      const pauseAt = shareEnd(now(), prepared.deadline, open.length - k);
      const status = check.runTo(() => decided.end(i, round), Number.MAX_SAFE_INTEGER, pauseAt);
      decided.steps[i] = check.iterations;
      if (prepared.found.size > 0) break;
      if (status === 'running') continue;
      recordOutcome(prepared, decided, i, check.outcome());
      checks[i] = undefined;
      // An illegal part's objects are kept for its pre-check and counterexample (precheckRest):
      // built again, a million operations' objects were made twice more for the collector.
      if (status === 'illegal') break;
      prepared.parts[i].release();
    }
    sampleProcess(prepared);
    open = open.filter((i) => decided.outcomes[i] === undefined);
  }
  precheckRest(prepared);
  return conclude(prepared, decided, 0);
}

/** A part decided: its outcome recorded; found linearizable, it needs no pre-check. */
export function recordOutcome(prepared: Prepared, decided: Decided, part: number, outcome: PartOutcome): void {
  decided.record(part, outcome);
  if (outcome.status === 'linearizable') prepared.prechecked[part] = 1;
}

/** The schedule of the prepared parts (search-rounds.ts): round 0 of the check's sliceIterations, or FIRST_STEPS. */
export function newDecided(prepared: Prepared): Decided {
  const first = Math.max(1, prepared.options.sliceIterations ?? FIRST_STEPS);
  return new Decided(
    prepared.parts.map((part) => part.size),
    first,
  );
}

/** The check of one part, with its own budget. `deadline` is on this thread's clock. */
export function newPartCheck(prepared: Prepared, part: Part, deadline: number): PartCheck {
  return new PartCheck(
    prepared.model,
    prepared.initial,
    part.data(),
    { deadline, memoryLimitBytes: prepared.memoryLimitBytes, baseBytes: prepared.options.baseBytes ?? 0 },
    prepared.options.witness,
  );
}

/** Histories of at least this many operations fill the buffer pool before they are prepared. */
const RESERVE_OPERATIONS = 200_000;

/**
 * Fills this thread's buffer pool (buffers.reserve) for a large history, before its parts
 * are in the heap: the full collection the pool's buffers set off (V8 counts them as
 * external memory) then traces the history alone.
 */
export function reserveFor(history: readonly Op[]): void {
  if (history.length / 2 >= RESERVE_OPERATIONS) buffers.reserve();
}

/**
 * Pairs, splits and pre-checks: everything before the search. With `inThread` false, for
 * the parallel check: no part is pre-checked (the thread that takes a part does it), and the
 * buffer pool is left to the caller (parallel.ts, which fills it when that costs least).
 * `started`: when the check began (its time, and its time limit, count from then).
 */
export function prepare(
  history: readonly Op[],
  model: AnyModel | string,
  options: CheckOptions,
  inThread = true,
  started = now(),
): Prepared {
  if (inThread) reserveFor(history);
  // Each operation split as soon as it is paired: see visitOperations.
  return prepareFrom((add) => visitOperations(history, add), model, options, started, inThread);
}

/** Splits and pre-checks a paired history; `started`: when the check began, for its time. */
export function preparePaired(
  pairing: Pairing,
  model: AnyModel | string,
  options: CheckOptions,
  started: number,
  precheck = true,
): Prepared {
  const feed = (add: (p: PairedOp) => void) => {
    for (const p of pairing.ops) add(p);
    return pairing;
  };
  return prepareFrom(feed, model, options, started, precheck);
}

/** What prepare and preparePaired share: `feed` hands each operation to `add`, in invocation order. */
function prepareFrom(
  feed: (add: (p: PairedOp) => void) => Omit<Pairing, 'ops'>,
  model: AnyModel | string,
  options: CheckOptions,
  started: number,
  precheck: boolean,
): Prepared {
  const m = resolveModel(model);
  const only = options.only ? new Set(options.only) : undefined;
  const splitter = new Splitter(m);
  let operations = 0;
  let ignored = 0;
  const pairing = feed((p) => {
    if (only && !only.has(p.f)) {
      ignored++;
      return;
    }
    operations++;
    splitter.add(p);
  });
  const parts = splitter.finish().sort((a, b) => a.size - b.size);
  const initial = m.init(options.initial);
  const prepared: Prepared = {
    started,
    model: m,
    initial,
    parts,
    options,
    deadline: started + (options.timeLimitMs ?? Number.POSITIVE_INFINITY),
    memoryLimitBytes: options.memoryLimitBytes ?? GiB,
    stats: {
      operations,
      ignored,
      failed: pairing.failed,
      nemesis: pairing.nemesis,
      indefinite: splitter.indefinite,
      parts: parts.length,
    },
    peakHeapBytes: 0,
    peakRssBytes: 0,
    prechecked: new Uint8Array(parts.length),
    found: new Map(),
  };
  if (precheck) precheckFirst(prepared);
  sampleProcess(prepared);
  return prepared;
}

/**
 * The parts pre-checked before any search (precheckedFirst), in this thread. Each part's
 * objects go again once it is, but the first's (searchInThread begins with it): built again
 * when its search begins. Kept, a million operations' objects were all in the heap before
 * the first search, and each full collection traced them (one of 0.6 s).
 */
export function precheckFirst(prepared: Prepared): void {
  for (let i = 0; i < prepared.parts.length; i++) {
    if (!precheckedFirst(prepared.parts[i].size)) continue;
    precheckHere(prepared, i);
    if (i > 0) prepared.parts[i].release();
  }
}

/** Pre-checks part `part` in this thread unless it was: whether an impossible operation is found (in it or before). */
export function precheckHere(prepared: Prepared, part: number): boolean {
  if (prepared.prechecked[part] === 0) {
    const f = precheckPart(prepared, part);
    prepared.prechecked[part] = 1;
    if (f) prepared.found.set(part, f);
  }
  return prepared.found.size > 0;
}

/**
 * Before the verdict: every part not yet pre-checked (a violation ended the search first, or
 * it was not decided) and not found linearizable, then the one reported.
 */
export function precheckRest(prepared: Prepared): void {
  for (let i = 0; i < prepared.parts.length; i++) {
    if (prepared.prechecked[i] === 1) continue;
    precheckHere(prepared, i);
    // A part with an impossible operation is kept: reportImpossible may explain it.
    if (!prepared.found.has(i)) prepared.parts[i].release();
  }
  reportImpossible(prepared);
  for (const part of prepared.parts) part.release();
}

/** An operation of a part (its place there) that the model's pre-check found impossible. */
export interface Impossible {
  op: number;
  reason: string;
}

/**
 * The model's pre-check of one part. Violations the model sees without searching end the
 * check: cheap, and exactly the histories a search would have to exhaust to refute.
 */
export function precheckPart(prepared: Prepared, part: number): Impossible | undefined {
  return prepared.model.impossible?.(prepared.parts[part].data().ops, prepared.initial);
}

/**
 * Of the parts' impossible operations (every part pre-checked), the one reported: the
 * earliest to complete, then the first part in check order. It wins over any violation a
 * search found, whichever thread found what first.
 */
export function reportImpossible(prepared: Prepared): void {
  let best: { part: number; op: number; reason: string; ret: number } | undefined;
  for (const [part, f] of [...prepared.found].sort((a, b) => a[0] - b[0])) {
    const ret = prepared.parts[part].ret(f.op);
    if (!best || ret < best.ret) best = { part, ...f, ret };
  }
  if (!best) return;
  const ret = best.ret;
  // No operation completed before it: no shorter prefix can be a violation.
  const first = prepared.parts.every((part) => part.firstRet >= ret);
  prepared.impossible = explainImpossible(
    prepared.model,
    prepared.parts[best.part].data(),
    best.op,
    best.reason,
    first,
  );
}

/**
 * The process's heap (V8's count, 1.6 µs) for the stats' peak; at the end (`last`), the
 * process's peak RSS so far (processPeakRss). Reading the RSS itself (of /proc) costs 13-16
 * µs, 45 on a loaded machine, and sampled at every round it was a third of the time of a
 * check of a few dozen operations (issue 27).
 */
export function sampleProcess(prepared: Prepared, last = false): void {
  prepared.peakHeapBytes = Math.max(prepared.peakHeapBytes, getHeapStatistics().used_heap_size);
  if (last) prepared.peakRssBytes = processPeakRss();
}

/** The last reading of processPeakRss, and when (performance.now()). */
let peakRss = { bytes: 0, at: Number.NEGATIVE_INFINITY };

/**
 * The process's peak RSS so far (getrusage), read at most every 10 ms: a check of a few
 * dozen operations takes a tenth of a millisecond, and many in a row (several files) would
 * pay the read (5 µs, far more on a loaded machine) each time for the same figure.
 */
function processPeakRss(): number {
  const at = performance.now();
  if (at - peakRss.at >= 10) peakRss = { bytes: process.resourceUsage().maxRSS * 1024, at };
  return peakRss.bytes;
}

/** The verdict from the parts' outcomes (see the top of this file). */
export function conclude(prepared: Prepared, decided: Decided, threads: number): LinearizableResult {
  sampleProcess(prepared, true);
  const m = prepared.model;
  const outcomes = decided.outcomes;
  const sum = (f: (o: PartOutcome) => number) => outcomes.reduce((n, o) => n + (o ? f(o) : 0), 0);
  const stats: CheckStats = {
    ms: Math.round((now() - prepared.started) * 10) / 10,
    ...prepared.stats,
    dropped: sum((o) => o.dropped),
    iterations: decided.totalSteps,
    discardedIterations: decided.discardedSteps,
    counterexampleIterations: sum((o) => o.againIterations),
    cacheEntries: sum((o) => o.cacheEntries),
    peakBudgetBytes: Math.max(prepared.options.baseBytes ?? 0, ...outcomes.map((o) => o?.peakBytes ?? 0)),
    peakHeapBytes: prepared.peakHeapBytes,
    peakRssBytes: prepared.peakRssBytes,
    threads,
  };
  const checker = `linearizable(${m.name})`;
  const result: LinearizableResult = { checker, model: m.name, valid: true, summary: '', stats };
  const counterexample = prepared.impossible ?? (decided.best && outcomes[decided.best.part]?.counterexample);
  const open = outcomes.filter((o) => o?.status !== 'linearizable');
  let verdict: Validity = true;
  if (counterexample) {
    verdict = false;
    result.counterexample = counterexample;
    result.summary = `not linearizable: ${counterexample.op.text}${onKey(counterexample.key)} cannot take effect: ${counterexample.reason}`;
  } else if (open.length > 0) {
    verdict = 'unknown';
    const budget = open.some((o) => o?.status === 'out-of-memory') ? 'memory' : 'time';
    const parts = open.flatMap((o) => (o ? [o.progress] : []));
    result.unknown = { budget, parts };
    const limit =
      budget === 'memory'
        ? `memory budget of ${Math.round(prepared.memoryLimitBytes / 2 ** 20)} MiB reached`
        : `time limit of ${formatSeconds(prepared.options.timeLimitMs ?? 0)} reached`;
    const where = parts
      .slice(0, 3)
      .map(
        (p) =>
          `${p.key === null ? 'the history' : `key ${JSON.stringify(p.key)}`} (${p.linearized} of ${p.total} operations linearized)`,
      )
      .join(', ');
    result.summary = `unknown: ${limit} in ${where}${parts.length > 3 ? ` and ${parts.length - 3} more parts` : ''}`;
  } else {
    if (prepared.options.witness)
      result.linearization = outcomes.map((o, i) => ({ key: prepared.parts[i].key, order: o?.witness ?? [] }));
    const partWord = stats.parts === 1 ? 'part' : 'parts';
    result.summary = `linearizable: ${stats.operations} operations in ${stats.parts} ${partWord} (${stats.ms} ms)`;
  }
  result.valid = verdict;
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

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
