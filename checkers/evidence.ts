/**
 * evidence: was there enough in the history to judge safety at all? A lock that never
 * granted anything has no overlapping holders, and a store that rejected every write lost
 * nothing: the safety checkers then pass vacuously. This checker counts and says
 * `unknown`, with the reason, when the run gave too little to judge:
 *
 * - fewer than MIN_GRANTS acquires ok (every acquire failing or timing out: the lock was
 *   unavailable, or the backend broken);
 * - lock-set: fewer than MIN_ACCEPTED writes accepted, or under MIN_ACCEPTED_SHARE of the
 *   writes tried (a fenced store that turned nearly every write away);
 * - lock-set: no successful read of the store (lost updates needs the final read).
 *
 * A fenced store that rejected most writes but still accepted enough to judge is valid,
 * with a warning (`details.warnings`) that the summary and the report show.
 *
 * It also counts the holds that outlived their lease: held (from the grant to the release
 * invoke, the process's info, or the history's end) longer than the grant's validityMs. Not
 * a violation by itself (auto-extension, a session kept alive), but a library whose holds
 * outlive the TTL needs that figure to know its safety rests on the extension.
 */
import type { Op } from '../src/history/op.js';
import { pairLeniently } from '../src/history/pairs.js';
import type { RunChecker } from './checker.js';
import type { CheckerWords } from './checker-words.js';
import { leaseAt, leaseEnd } from './lease.js';
import { holdsOf } from './mutual-exclusion.js';
import { decodeWrite } from './op-values.js';
import type { CheckerViolation, CheckResult } from './result.js';

export const MIN_GRANTS = 2;
export const MIN_ACCEPTED = 3;
export const MIN_ACCEPTED_SHARE = 0.1;

export interface EvidenceOptions {
  /** Whether the workload writes the store (lock-set) or only takes the lock (mutex). */
  writes: boolean;
  storeKey: string;
  fencing: boolean;
}

export type EvidenceDetails = {
  acquires: number;
  grants: number;
  acquireFail: number;
  acquireInfo: number;
  writes?: number;
  accepted?: number;
  rejected?: number;
  reads?: number;
  /** Holds whose grant said how long it lasts (validityMs), and of them those held longer. */
  leasedHolds?: number;
  outlived?: number;
  /** Why there was too little to judge (empty: enough). */
  tooLittle: string[];
  /** Worth saying though the run could be judged. */
  warnings: string[];
  /** Fenced: the first writes the store turned away (completion op index), for the report. */
  rejectedWrites?: RejectedWrite[];
};

export interface RejectedWrite {
  index: number;
  process: number;
  token?: number;
}

const pct = (n: number, of: number) => `${Math.round((1000 * n) / of) / 10}%`;

export function checkEvidence(
  history: readonly Op[],
  opts: EvidenceOptions,
): CheckResult & { details: EvidenceDetails } {
  const pairs = pairLeniently(history);
  const acquires = pairs.filter((p) => p.f === 'acquire');
  const grants = acquires.filter((p) => p.outcome === 'ok').length;
  const acquireFail = acquires.filter((p) => p.outcome === 'fail').length;
  const acquireInfo = acquires.length - grants - acquireFail;
  const details: EvidenceDetails = {
    acquires: acquires.length,
    grants,
    acquireFail,
    acquireInfo,
    tooLittle: [],
    warnings: [],
  };
  const leases = outlivedLeases(history);
  if (leases.holds > 0) Object.assign(details, { leasedHolds: leases.holds, outlived: leases.outlived });
  if (grants < MIN_GRANTS) {
    const what = acquires.length
      ? `only ${grants} of ${acquires.length} acquires granted (${acquireFail} failed, ${acquireInfo} timed out or unknown)`
      : 'no acquire was tried';
    details.tooLittle.push(
      `${what}; at least ${MIN_GRANTS} grants are needed to judge mutual exclusion (is the lock service up?)`,
    );
  }
  if (opts.writes) {
    const store = pairs.filter((p) => p.key === opts.storeKey);
    const writes = store.filter((p) => p.f === 'write');
    const accepted = writes.filter((p) => p.outcome === 'ok').length;
    const rejected = writes.filter((p) => p.outcome === 'fail').length;
    const reads = store.filter((p) => p.f === 'read' && p.outcome === 'ok').length;
    Object.assign(details, { writes: writes.length, accepted, rejected, reads });
    if (opts.fencing && rejected > 0) {
      details.rejectedWrites = writes
        .filter((p) => p.outcome === 'fail' && p.completion)
        .slice(0, 20)
        .map((p) => {
          const { token } = decodeWrite(p.invoke.value);
          const w: RejectedWrite = {
            index: (p.completion as Op).index,
            process: p.process,
          };
          if (token !== undefined) w.token = token;
          return w;
        });
    }
    const rejectedWords = rejected ? ` (the store rejected ${rejected} of ${writes.length})` : '';
    if (accepted < MIN_ACCEPTED || (writes.length > 0 && accepted / writes.length < MIN_ACCEPTED_SHARE)) {
      details.tooLittle.push(
        `only ${accepted} of ${writes.length} writes accepted${rejectedWords}; lost updates and fencing need at least ${MIN_ACCEPTED}, and ${pct(MIN_ACCEPTED_SHARE, 1)} of those tried`,
      );
    } else if (rejected > writes.length / 2) {
      details.warnings.push(
        `the store rejected ${rejected} of ${writes.length} writes (${pct(rejected, writes.length)}): stale holders were turned away most of the time; the data is safe, the lock barely worked`,
      );
    }
    if (reads === 0) details.tooLittle.push('no successful read of the store: what it kept cannot be told');
  }
  const counted = `${grants} of ${acquires.length} acquires granted${
    details.writes !== undefined
      ? `, ${details.accepted} of ${details.writes} writes accepted, ${details.reads} reads`
      : ''
  }${details.leasedHolds ? `, ${details.outlived} of ${details.leasedHolds} holds outlived their lease` : ''}`;
  if (details.tooLittle.length > 0) {
    return {
      checker: 'evidence',
      valid: 'unknown',
      summary: `too little to judge safety: ${details.tooLittle.join('; ')}`,
      details,
    };
  }
  const warn = details.warnings.length ? `; warning: ${details.warnings.join('; ')}` : '';
  return { checker: 'evidence', valid: true, summary: `${counted}${warn}`, details };
}

/**
 * Holds whose grant carries its validity, and how many of them lasted longer: from the
 * grant (the acquire's ok) to the release invoke or the hold's end (an info; never ended:
 * the history's last op), against the grant's validityMs, or its last extension's.
 */
export function outlivedLeases(history: readonly Op[]): { holds: number; outlived: number } {
  let last = 0;
  for (const op of history) last = Math.max(last, op.time);
  let holds = 0;
  let outlived = 0;
  for (const h of holdsOf(history)) {
    const end = Number.isFinite(h.end) ? h.end : last;
    // From its last extension in the hold, where its library extended it (lease.ts).
    const lease = leaseAt(history, h, end);
    if (lease === undefined) continue;
    holds += 1;
    if (end > leaseEnd(lease)) outlived += 1;
  }
  return { holds, outlived };
}

/**
 * Counted: a safety verdict on (next to) nothing is no verdict. `writes`: whether the
 * workload writes the store (then accepted writes and reads are needed too).
 */
export function evidenceChecker(opts: { writes: boolean }): RunChecker {
  return {
    name: () => 'evidence',
    counts: () => true,
    check: (run) => checkEvidence(run.history, { writes: opts.writes, storeKey: run.storeKey, fencing: run.fencing }),
  };
}

/** The writes a fenced store turned away: fencing at work, not a violation; shown, under fencing's name. */
export function evidenceViolations(result: CheckResult): CheckerViolation[] {
  const rejected = (result.details as Partial<EvidenceDetails> | undefined)?.rejectedWrites;
  if (result.valid === false || !Array.isArray(rejected)) return [];
  return rejected.map((w) => {
    const token = w.token === undefined ? '' : ` with stale token ${w.token}`;
    return {
      kind: 'turned-away',
      checker: 'fencing',
      shownOnly: true,
      words: `the store turned away process ${w.process}'s write${token} (op #${w.index}): a stale holder kept out`,
      marks: [{ index: w.index, label: `write rejected${token}` }],
    };
  });
}

const detailsOf = (result: CheckResult) => result.details as Partial<EvidenceDetails> | undefined;

/** evidence speaks for the data: whether there was enough to judge, and the writes fencing turned away. */
export const evidenceWords: CheckerWords = {
  judges: 'data',
  violations: evidenceViolations,
  turnedAway: (result) => {
    const d = detailsOf(result);
    const first = d?.rejectedWrites?.[0];
    return first ? { first, count: d?.rejected ?? 1 } : undefined;
  },
  undecided: (result) => {
    const tooLittle = detailsOf(result)?.tooLittle;
    return Array.isArray(tooLittle) && tooLittle.length > 0
      ? `too little evidence to judge: ${tooLittle.join('; ')}`
      : undefined;
  },
  warnings: (result) => {
    const warnings = detailsOf(result)?.warnings;
    return Array.isArray(warnings) ? warnings : [];
  },
};
