/**
 * What every checker returns. `valid` is Jepsen's three-valued verdict: `unknown` means
 * the checker could not decide (a budget ran out, the history is too short), never a
 * guess. A run's verdict is the worst of its counted checkers' (false < unknown < true).
 */
export type Validity = true | false | 'unknown';

/** A verdict's name: what expectations, scenarios and the report's classes compare. */
export type VerdictName = 'valid' | 'invalid' | 'unknown';

export function verdictName(v: Validity): VerdictName {
  return v === true ? 'valid' : v === false ? 'invalid' : 'unknown';
}

/** A verdict in one word, as the summary, the report and JUnit print it: INVALID stands out. */
export const verdictWord = (v: Validity) => (v === false ? 'INVALID' : verdictName(v));

export interface CheckResult {
  /** The checker's name as shown in summaries: "mutual-exclusion", "linearizable(mutex)" ... */
  checker: string;
  valid: Validity;
  /** One line for the summary: counts, or the first violation in words. */
  summary: string;
  /** Whether this verdict counts toward the run's verdict (false: shown for information). */
  counts?: boolean;
  /** Checker-specific details, JSON-serialisable, written to results.json. */
  details?: Record<string, unknown>;
  /** Milliseconds the checker took (set by the runner; junit.xml's case time). */
  timeMs?: number;
}

/** The worst of several verdicts: any false is false; else any unknown is unknown. */
export function worst(verdicts: Iterable<Validity>): Validity {
  let result: Validity = true;
  for (const v of verdicts) {
    if (v === false) return false;
    if (v === 'unknown') result = 'unknown';
  }
  return result;
}

/** A run's verdict from its checkers': the worst of those that count. */
export function countedVerdict(results: readonly CheckResult[]): Validity {
  return worst(results.filter((r) => r.counts !== false).map((r) => r.valid));
}

/** The CLI's exit code for a verdict: 0 valid, 1 invalid, 2 unknown (3 is an error). */
export function exitCodeFor(valid: Validity): 0 | 1 | 2 {
  return valid === true ? 0 : valid === false ? 1 : 2;
}

/**
 * A violation as the checker that found it names it, for the report to show (violations.ts
 * gathers each checker's decoder): its kind, in words, and the operations to mark.
 */
export type ViolationKind = 'overlap' | 'lost' | 'stale' | 'regression' | 'turned-away' | 'other';

/** A span a process believed it held the lock: times in ns, end Infinity when it never ended. */
export interface HeldSpan {
  process: number;
  start: number;
  end: number;
}

export interface CheckerViolation {
  kind: ViolationKind;
  words: string;
  /** Op indices (the stored history's) to highlight, with a short label each. */
  marks: { index: number; label: string }[];
  /** Overlapping beliefs: the two holds. */
  holds?: [HeldSpan, HeldSpan];
  /** Not a violation but a check at work, shown for information (fencing turning a write away). */
  shownOnly?: boolean;
  /** The checker the report names, when not the one that recorded it. */
  checker?: string;
}
