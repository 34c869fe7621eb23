/**
 * Counterexamples: what a part's failed search (or the model's pre-check) found, in words and
 * as data for reports. Built where the part was searched (a worker thread, perhaps), so
 * everything here is plain data that crosses threads.
 */
import type { PairedOutcome } from '../../src/history/pairs.js';
import { plural } from '../../src/util/plural.js';
import { printable } from '../../src/util/printable.js';
import { type Model, type PartOp, Rejection } from '../models/linearizable-model.js';
import type { PartSearch } from './search.js';

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

/** What reports need of an operation besides what the model sees. */
export interface OpRecord {
  process: number;
  f: string;
  outcome: PairedOutcome;
  invokeIndex: number;
  /** The completion's index; absent for operations that never completed. */
  completionIndex?: number;
}

/**
 * One part (key) of a history: its operations as the model sees them, and where each ended.
 * That is all reports need besides (recordOf): an operation's process, f and invocation
 * index are its input's, and its outcome follows from its output and its completion. A
 * record object per operation was a fifth of a checked history's memory (70 bytes of 250 per
 * operation), which every collection of the heap traced.
 */
export interface PartData {
  key: string | null;
  ops: PartOp[];
  /** Per op, its completion's index in the history (ok or info), or -1 when it never completed. */
  completions: number[];
}

/** An operation of a part as reports name it. */
export function recordOf(part: PartData, tag: number): OpRecord {
  const { input, output } = part.ops[tag];
  const completion = part.completions[tag];
  const outcome: PairedOutcome = output.known ? 'ok' : completion >= 0 ? 'info' : 'pending';
  const record: OpRecord = { process: input.process, f: input.f, outcome, invokeIndex: input.index };
  if (completion >= 0) record.completionIndex = completion;
  return record;
}

/** The search keeps this many configurations at the failing operation (see search.ts). */
const MAX_SHOWN_CONFIGURATIONS = 8;

/** " on key "k"" after an operation's text; nothing for the part of operations without a key. */
export function onKey(key: string | null): string {
  return key === null ? '' : ` on key ${printable(JSON.stringify(key))}`;
}

function summarize(m: Model<unknown>, part: PartData, tag: number): OpSummary {
  const p = recordOf(part, tag);
  const op = part.ops[tag];
  const summary: OpSummary = {
    index: p.invokeIndex,
    process: p.process,
    f: p.f,
    outcome: p.outcome,
    // Both ends: an acquire invoked at op 7 may have completed seconds later, at op 95.
    // The history's own text (its f, values) made printable: a counterexample's words are
    // printed on a terminal, one line each, and a value's newline must not make another.
    text: `op ${p.invokeIndex} (process ${p.process}: ${printable(m.describeOp(op.input, op.output))}${p.outcome === 'ok' ? (p.completionIndex !== undefined ? `, completed at op ${p.completionIndex}` : '') : `, ${p.outcome === 'info' ? 'ended as info' : 'never completed'}`})`,
  };
  if (p.completionIndex !== undefined) summary.completionIndex = p.completionIndex;
  if (op.input.key !== undefined) summary.key = op.input.key;
  if (op.input.value !== undefined) summary.value = op.input.value;
  if (op.output.known && op.output.value !== undefined) summary.result = op.output.value;
  return summary;
}

/**
 * The counterexample of a part whose search ended 'illegal'. `deadlines`: the indefinite ops
 * the model made required, and the history position each must precede. `exhaustive`: the
 * search tried every order to its end (none given up early: PartSearch.givenUp), so that its
 * last dead ends are the shortest prefix's; otherwise the words claim only what it found.
 */
export function explain(
  m: Model<unknown>,
  part: PartData,
  search: PartSearch<unknown>,
  deadlines: ReadonlyMap<number, number>,
  exhaustive = true,
): Counterexample {
  const failure = search.failure();
  const failTag = failure?.op ?? 0;
  const failing = summarize(m, part, failTag);
  const failingOp = part.ops[failTag];
  // An indefinite op the model made required fails at its deadline: the completion of the
  // operation that observed its effect (an ok op of this part).
  const deadline = deadlines.get(failTag);
  const observer = deadline === undefined ? -1 : part.ops.findIndex((o) => o.ret === deadline);
  const prefixEnd = observer >= 0 ? part.completions[observer] : (failing.completionIndex ?? failing.index);
  const deadEnds = failure?.deadEnds ?? [];
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
    const reason =
      stepped instanceof Rejection ? printable(stepped.reason) : 'taking effect here leads to a dead end later';
    return {
      state: printable(m.describe(state)),
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
    exhaustive
      ? `Up to just before op ${prefixEnd} the history is linearizable; up to op ${prefixEnd} no order of its operations is: that is the shortest prefix that cannot be linearized (at most ${search.maxLinearized} of the part's ${search.requiredTotal} required operations could be ordered).`
      : `Up to just before op ${prefixEnd} the history is linearizable. No order of the whole part is; no order the search followed got past op ${prefixEnd} (it gave up an order as soon as a read pending in it could no longer take effect, and had no time or memory left to search again for the shortest prefix that cannot be linearized, which may be longer).`,
  ];
  if (configurations.length > 0) {
    lines.push(
      exhaustive
        ? `Every order that gets as far as ${name} ends in ${configurations.length === 1 ? 'this configuration' : `one of these ${configurations.length} configurations${more}`}:`
        : `Orders the search followed as far as ${name} ended in ${configurations.length === 1 ? 'this configuration' : `these ${configurations.length} configurations (there may be more)`}:`,
    );
    configurations.forEach((c, i) => {
      const last = c.lastLinearized.slice(-4).map((o) => o.text);
      const after =
        c.linearized === 0
          ? 'nothing linearized yet'
          : `${plural(c.linearized, 'operation')} linearized, ending with ${last.join(', ')}`;
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

/**
 * The counterexample of an operation the model's pre-check found impossible. `first`: no
 * operation of the history completed before it, so no shorter prefix can be a violation.
 */
export function explainImpossible(
  m: Model<unknown>,
  part: PartData,
  op: number,
  reason: string,
  first = false,
): Counterexample {
  const why = printable(reason);
  const failing = summarize(m, part, op);
  const prefixEnd = failing.completionIndex ?? failing.index;
  const key = part.key;
  const lines = [
    `${failing.text}${onKey(key)}, invoked at op ${failing.index}, completed at op ${prefixEnd}, cannot be linearized:`,
    `${why}.`,
    `So no order of the operations explains the history up to op ${prefixEnd} (found without searching${first ? '' : '; an earlier violation may exist'}).`,
  ];
  return {
    key,
    op: failing,
    reason: why,
    prefixEnd,
    linearizedBefore: 0,
    configurations: [],
    involved: [failing],
    describe: lines.join('\n'),
  };
}
