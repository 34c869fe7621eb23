/**
 * Mutual exclusion: no two clients believed they held the same lock at the same time.
 *
 * A process's belief starts when its acquire completes `ok` and ends when it invokes
 * release, or when an operation of its completes `info` (it issues nothing more after
 * that, so it stops using the lock). A belief never ended lasts to the end of the test. Two
 * beliefs of different processes on one lock that overlap in time are a violation, named
 * by the pair, with the faults active from their acquires to the overlap.
 *
 * With fencing the overlap of beliefs is expected (a paused holder outlives its lease):
 * the run then reports it but does not count it; the data checkers decide.
 */
import type { Op } from '../src/history/op.js';
import { type LenientOp, pairLeniently } from '../src/history/pairs.js';
import { plural } from '../src/util/plural.js';
import type { RunChecker } from './checker.js';
import type { CheckerWords } from './checker-words.js';
import { faultWindows } from './fault-windows.js';
import { type Hold, type StoredHold, storedHold } from './hold.js';
import { leaseAt, leaseEnd } from './lease.js';
import { decodeGrant } from './op-values.js';
import type { CheckerViolation, CheckResult } from './result.js';
import { secs } from './seconds.js';

export type { Hold } from './hold.js';

/** The holds of each pairing (pairLeniently's, kept with its history): the checker's and the report's. */
const heldIn = new WeakMap<readonly LenientOp[], readonly Hold[]>();

/** holds(), made once per history (and again if it has grown): shared, so read-only. */
export function holdsOf(history: readonly Op[]): readonly Hold[] {
  const pairs = pairLeniently(history);
  let found = heldIn.get(pairs);
  if (!found) {
    found = holds(history);
    heldIn.set(pairs, found);
  }
  return found;
}

export function holds(history: readonly Op[]): Hold[] {
  const result: Hold[] = [];
  const open = new Map<number, Hold>();
  for (const { invoke, completion } of pairLeniently(history)) {
    const p = invoke.process as number;
    const held = open.get(p);
    if (held && invoke.f === 'release' && (invoke.key ?? '') === held.lock) {
      held.end = invoke.time;
      held.releaseIndex = invoke.index;
      open.delete(p);
      continue;
    }
    if (held) {
      // After an `info` the process issues no more: its belief ends there.
      if (completion?.type === 'info') {
        held.end = completion.time;
        open.delete(p);
      }
      continue;
    }
    if (invoke.f === 'acquire' && completion?.type === 'ok') {
      const { token } = decodeGrant(completion.value);
      const hold: Hold = {
        process: p,
        lock: invoke.key ?? '',
        start: completion.time,
        end: completion.time,
        acquireIndex: completion.index,
      };
      if (token !== undefined) hold.token = token;
      result.push(hold);
      open.set(p, hold);
    }
  }
  // Never released, never given up: the process believes it holds to the end.
  for (const hold of open.values()) hold.end = Number.POSITIVE_INFINITY;
  return result;
}

/** When the acquire that made this hold was invoked (its grant's time if the pair is not found). */
export function acquireInvokedAt(history: readonly Op[], hold: Hold): number {
  return pairLeniently(history).find((p) => p.completion?.index === hold.acquireIndex)?.invoke.time ?? hold.start;
}

export interface Overlap {
  first: Hold;
  second: Hold;
}

export function overlaps(all: readonly Hold[]): Overlap[] {
  const found: Overlap[] = [];
  const byStart = [...all].sort((a, b) => a.start - b.start);
  // Sweep: holds still open when the next one starts.
  const active: Hold[] = [];
  for (const h of byStart) {
    for (let i = active.length - 1; i >= 0; i--) if ((active[i] as Hold).end <= h.start) active.splice(i, 1);
    for (const a of active) if (a.lock === h.lock && a.process !== h.process) found.push({ first: a, second: h });
    active.push(h);
  }
  return found;
}

/**
 * How the lock came free under its holder, when the history shows it: another process's
 * release, sent before the holder's grant (the release of the hold before it), that
 * completed ok while the holder held the lock, the nearest to the next acquire. A release
 * that deletes the key without checking whose it is, and reaches the server late, does
 * that: it deletes another holder's lock.
 */
export function releasedUnder(history: readonly Op[], holder: Hold, next: Hold): string | undefined {
  let found: { invoke: Op; completion: Op } | undefined;
  const pairs = pairLeniently(history);
  // A holder whose own release found the lock gone (not ok: "no longer ours") lost it
  // before that answer: a delete answered up to then may have landed while it held. (Not
  // from its acquire's request on: an acquire that retried for seconds would take in any
  // release of the time; the headline does so only for a release a wire fault caught.)
  const own = holder.releaseIndex === undefined ? undefined : pairs.find((p) => p.invoke.index === holder.releaseIndex);
  const lost = own?.completion !== undefined && own.completion.type !== 'ok';
  const heldFrom = holder.start;
  const heldUntil = lost ? Math.max(holder.end, own?.completion?.time ?? holder.end) : holder.end;
  for (const { invoke, completion } of pairs) {
    if (invoke.f !== 'release' || completion?.type !== 'ok' || (invoke.key ?? '') !== holder.lock) continue;
    if (invoke.process === holder.process) continue;
    // In flight when the holder was granted, answered while it still held: its effect may
    // have come at any time in between, before the next acquire (the answer can be late).
    if (invoke.time >= holder.start || completion.time < heldFrom || completion.time > heldUntil) continue;
    if (!found || Math.abs(completion.time - next.start) < Math.abs(found.completion.time - next.start)) {
      found = { invoke, completion };
    }
  }
  if (!found) return undefined;
  return `another holder's lock released: process ${found.invoke.process}'s release (op #${found.completion.index}), sent at ${secs(found.invoke.time)} before process ${holder.process}'s grant, completed at ${secs(found.completion.time)} while process ${holder.process} held the lock`;
}

/**
 * The holder's lease had run out by the next grant, by its own grant's validity or, where
 * its library extended it, its last extension's (lease.ts): the lock came free under it by
 * time, whatever release was in flight (one that checks the owner, as etcd's and Redlock's
 * do, deletes nothing of another's). Undefined when the grant gave no validity or the
 * lease still stood.
 */
export function leaseLapsed(history: readonly Op[], holder: Hold, next: Hold): string | undefined {
  const lease = leaseAt(history, holder, next.start);
  if (lease === undefined) return undefined;
  const end = leaseEnd(lease);
  if (next.start < end) return undefined;
  const renewed = lease.extension
    ? `last extended at ${secs(lease.time)} (op #${lease.index}) with ${lease.validityMs} ms of validity`
    : `granted with ${lease.validityMs} ms of validity at ${secs(lease.time)}`;
  return `process ${holder.process}'s lease had run out: ${renewed}, to ${secs(end)}, before process ${next.process}'s grant`;
}

export { grantedValidityMs } from './lease.js';

/** `verb`: "also held" for the second of an overlapping pair. */
export function describeHold(h: Hold, verb = 'held'): string {
  const end = Number.isFinite(h.end) ? secs(h.end) : 'the end of the test';
  const token = h.token !== undefined ? ` with token ${h.token}` : '';
  return `process ${h.process} ${verb} '${h.lock}'${token} from ${secs(h.start)} (op #${h.acquireIndex}) to ${end}${h.releaseIndex !== undefined ? ` (release #${h.releaseIndex})` : ''}`;
}

// A type, not an interface: results.json details are a plain record.
export type MutualExclusionDetails = {
  holds: number;
  overlaps: number;
  /** The first overlap in words (the summary's). */
  first?: string;
  /** The first 50 overlapping pairs, for the report. */
  pairs?: Overlap[];
};

export function checkMutualExclusion(
  history: readonly Op[],
  opts: { counts: boolean },
): CheckResult & { details: MutualExclusionDetails } {
  const all = holdsOf(history);
  const found = overlaps(all);
  const windows = faultWindows(history);
  const base = { checker: 'mutual-exclusion', counts: opts.counts };
  if (found.length === 0) {
    return {
      ...base,
      valid: true,
      summary: `${all.length} holds, none overlapping`,
      details: { holds: all.length, overlaps: 0 },
    };
  }
  const { first, second } = found[0] as Overlap;
  // From the earlier of the two acquires' invokes: a client stopped inside its acquire
  // (client-clock, in-acquire) is resumed, and its fault's window ends, just before the
  // grant that overlaps.
  const from = Math.min(first.start, acquireInvokedAt(history, first), acquireInvokedAt(history, second));
  const during = windows
    .filter((w) => w.start <= second.start && (w.end ?? Number.POSITIVE_INFINITY) >= from)
    .map((w) => `${w.f} ${JSON.stringify(w.value)} ${secs(w.start)}–${w.end !== undefined ? secs(w.end) : 'end'}`);
  const under = leaseLapsed(history, first, second) ?? releasedUnder(history, first, second);
  const words =
    `${describeHold(first)}, while process ${second.process} acquired it at ${secs(second.start)} (op #${second.acquireIndex})` +
    (under ? `; ${under}` : '') +
    (during.length ? `; faults active: ${during.join(', ')}` : '');
  return {
    ...base,
    valid: false,
    summary: `${found.length} overlapping holds of ${all.length}; first: ${words}`,
    details: {
      holds: all.length,
      overlaps: found.length,
      first: words,
      pairs: found.slice(0, 50).map((o) => ({ first: o.first, second: o.second })),
    },
  };
}

/**
 * With fencing, two clients believing they hold the lock at once is expected (a paused
 * holder outlives its lease), so the verdict rests on the data: shown, not counted. Without
 * fencing, the beliefs themselves must not overlap.
 */
export const mutualExclusionChecker: RunChecker = {
  name: () => 'mutual-exclusion',
  counts: (run) => !run.fencing,
  check: (run) => checkMutualExclusion(run.history, { counts: mutualExclusionChecker.counts(run) }),
};

/** The overlapping pairs a result names, each with the ops to mark. */
export function mutualExclusionViolations(result: CheckResult): CheckerViolation[] {
  const pairs = (result.details as { pairs?: { first: StoredHold; second: StoredHold }[] } | undefined)?.pairs;
  if (result.valid !== false || !Array.isArray(pairs)) return [];
  return pairs.flatMap((p) => {
    const a = storedHold(p.first);
    const b = storedHold(p.second);
    if (a === undefined || b === undefined) return [];
    const marks = [
      { index: a.acquireIndex, label: `p${a.process} acquires` },
      { index: b.acquireIndex, label: `p${b.process} acquires while p${a.process} holds` },
    ];
    if (a.releaseIndex !== undefined) marks.push({ index: a.releaseIndex, label: `p${a.process} releases` });
    if (b.releaseIndex !== undefined) marks.push({ index: b.releaseIndex, label: `p${b.process} releases` });
    return {
      kind: 'overlap',
      words: `${describeHold(a)}, while ${describeHold(b, 'also held')}`,
      marks,
      holds: [a, b],
    };
  });
}

/** "no two of 5 holds overlapped", or "1 hold, none overlapping": the holds a result counted. */
function exclusionWords(result: CheckResult): string | undefined {
  const holds = (result.details as Partial<MutualExclusionDetails> | undefined)?.holds;
  if (typeof holds !== 'number') return undefined;
  return holds >= 2 ? `no two of ${holds} holds overlapped` : `${plural(holds, 'hold')}, none overlapping`;
}

/** mutual-exclusion speaks for the holds: whether two processes believed they held at once. */
export const mutualExclusionWords: CheckerWords = {
  judges: 'holds',
  violations: mutualExclusionViolations,
  exclusion: exclusionWords,
  overlappingHolds: (result) => Number((result.details as Partial<MutualExclusionDetails> | undefined)?.overlaps ?? 0),
};
