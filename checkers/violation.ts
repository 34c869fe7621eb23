/**
 * A violation as the checker that found it names it, for the report to show: its kind, in
 * words, and the operations to mark. Each checker decodes its own stored details into these
 * (results.json's, so a run folder's report reads them as the run wrote them); the report
 * only places them on its timeline.
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
