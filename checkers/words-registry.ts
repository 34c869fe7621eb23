/**
 * The checkers that speak for their results, by the name their results carry: the report,
 * the headline and the sweep read a result through its checker's words (checker-words.ts).
 * A result of a checker not listed (linearizability) says nothing beyond its summary and
 * is taken to judge the data. A client program's failures (src/runner/program-failures.ts)
 * are said in the library's own words.
 */
import type { CheckerWords } from './checker-words.js';
import { evidenceWords } from './evidence.js';
import { fencingWords } from './fencing.js';
import { lostUpdatesWords } from './lost-updates.js';
import { mutualExclusionWords } from './mutual-exclusion.js';
import type { CheckResult } from './result.js';

const WORDS: Record<string, CheckerWords> = {
  'mutual-exclusion': mutualExclusionWords,
  'lost-updates': lostUpdatesWords,
  fencing: fencingWords,
  evidence: evidenceWords,
  'client-program': { judges: 'data', ownWords: true },
};

const SILENT: CheckerWords = { judges: 'data' };

/** The words of the checker that wrote `result`. */
export function wordsOf(result: CheckResult): CheckerWords {
  return Object.hasOwn(WORDS, result.checker) ? (WORDS[result.checker] as CheckerWords) : SILENT;
}

/** The first answer of `say` over `results`, in their order: what the first result that can tell says. */
export function firstSaid<T>(
  results: readonly CheckResult[],
  say: (words: CheckerWords, result: CheckResult) => T | undefined,
): T | undefined {
  for (const r of results) {
    const said = say(wordsOf(r), r);
    if (said !== undefined) return said;
  }
  return undefined;
}

/** Every result's warnings, in order. */
export const warningsOf = (results: readonly CheckResult[]): string[] =>
  results.flatMap((r) => wordsOf(r).warnings?.(r) ?? []);
