/**
 * What a checker says of its own stored result (results.json's, as the report and the sweep
 * read it): the sentences and figures the report's first line, its warnings and the sweep's
 * measures use. Each checker reads its own details here, beside its check, so the report
 * and the sweep name no checker and cast no details: a checker that should speak in the
 * headline writes its words in its own file and one line in words-registry.ts.
 *
 * Every part is optional: a checker answers what it knows, and the reader takes the first
 * result that answers (results in the workload's order).
 */
import type { CheckerViolation, CheckResult, ViolationKind } from './result.js';

/** What became of the data: "2 acknowledged adds lost", or that nothing was lost. */
export interface DataFate {
  words: string;
  /** Nothing acknowledged was lost (the store kept every add). */
  intact: boolean;
  /** When intact, what was kept in figures: "all 77 acknowledged adds kept". */
  kept?: string;
}

/** A write a fenced store turned away: its completion (history index), its process, its token. */
export interface TurnedAwayWrite {
  index: number;
  process: number;
  token?: number;
}

export interface CheckerWords {
  /**
   * What it judges: the lock's holds (their overlaps) or the data kept under it. The sweep
   * counts a counted violation of the data apart from one of the holds.
   */
  judges: 'holds' | 'data';
  /** The violations its result names, with the ops to mark, for the report's timeline. */
  violations?(result: CheckResult): CheckerViolation[];
  /** What became of the data. */
  dataFate?(result: CheckResult): DataFate | undefined;
  /**
   * Its first violation of `kind` in the headline's short words: "the store accepted stale
   * token 17 after token 16".
   */
  firstOfKind?(result: CheckResult, kind: ViolationKind): string | undefined;
  /** The first write the store turned away, and how many it turned away. */
  turnedAway?(result: CheckResult): { first: TurnedAwayWrite; count: number } | undefined;
  /** Why it could not decide, when it can say so better than its summary. */
  undecided?(result: CheckResult): string | undefined;
  /** How exclusive the holds were, with no overlap: "no two of 5 holds overlapped". */
  exclusion?(result: CheckResult): string | undefined;
  /** Overlapping holds it found, counted or not: the sweep's figure. */
  overlappingHolds?(result: CheckResult): number | undefined;
  /** Worth saying though the run could be judged (the summary's and the report's warnings). */
  warnings?(result: CheckResult): string[];
  /**
   * Its violations are a failure in the words of what failed (a client program's library,
   * under a fault): the headline says them as they are, not under the checker's name, and
   * after the run's own story when another violation leads.
   */
  ownWords?: true;
}
