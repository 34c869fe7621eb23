/** The short summary printed after a run: per checker its verdict, counts, first violation. */
import { availabilityShortfall } from '../../checkers/availability.js';
import { type CoverageRow, coverageLines } from '../../checkers/coverage.js';
import { type CheckResult, type Validity, verdictName, verdictWord } from '../../checkers/result.js';
import { warningsOf } from '../../checkers/words-registry.js';
import { conditionsText, type RunCondition } from '../run-data/conditions.js';
import { fencingWord } from '../run-data/config.js';
import { scenarioByName } from '../scenarios/index.js';
import { paint } from '../util/terminal.js';
import { headlineWithoutConditions } from './headline.js';

/** The scenario's expectation against the verdict, when the run came from a preset. */
function expectationLine(
  config: { scenario?: string; fencing: boolean },
  valid: Validity,
  results: readonly CheckResult[],
): string[] {
  const scenario = config.scenario ? scenarioByName(config.scenario) : undefined;
  if (!scenario) return [];
  const expected = config.fencing ? scenario.expected.fenced : scenario.expected.unfenced;
  const actual = verdictName(valid);
  const mode = fencingWord(config.fencing);
  const short = scenario.availability === undefined ? undefined : availabilityShortfall(results, scenario.availability);
  const as = expected !== actual ? 'NOT as expected' : short ? `NOT as expected: ${short}` : 'as expected';
  return [`scenario ${scenario.name} (${mode}) expects ${expected}: ${as}`];
}

/** A verdict word in its colour: INVALID red, unknown yellow, valid green. */
function verdictPainted(valid: Validity, colour: boolean): string {
  const word = verdictWord(valid).padEnd(7);
  return valid === false
    ? paint(colour, word, 'red', 'bold')
    : valid === true
      ? paint(colour, word, 'green')
      : paint(colour, word, 'yellow');
}

/**
 * The summary: the counted checkers first (the verdict is theirs), then those shown for
 * information, marked `shown` in place of a verdict, so that a reader scanning for INVALID
 * does not find it in a valid run. `colour`: ANSI colours (a terminal; util/terminal.ts).
 */
export function formatSummary(
  r: {
    dir: string;
    valid: Validity;
    results: CheckResult[];
    conditions?: readonly RunCondition[];
    config: { seed: number; scenario?: string; fencing: boolean; timeLimitS: number };
    stoppedEarly?: { atS: number; why: string };
    /** The verdict in one sentence (headline.ts), printed under the verdict line. */
    headline?: string;
    /** The code points reached and the faults aimed at them (checkers/coverage.ts). */
    coverage?: readonly CoverageRow[];
  },
  { colour = false }: { colour?: boolean } = {},
): string {
  const conditions = r.conditions ?? [];
  const expectation = expectationLine(r.config, r.valid, r.results);
  const headline = r.headline === undefined ? undefined : headlineWithoutConditions(r.headline, conditions);
  const warnings = warningsOf(r.results);
  const width = Math.max(...r.results.map((c) => c.checker.length));
  const counted = r.results.filter((c) => c.counts !== false);
  const shown = r.results.filter((c) => c.counts === false);
  const line = (c: CheckResult, word: string) => `  ${c.checker.padEnd(width)}  ${word}  ${c.summary}`;
  return [
    'checkers:',
    ...counted.map((c) => line(c, verdictPainted(c.valid, colour))),
    ...(shown.length
      ? [
          paint(colour, 'shown, not counted:', 'dim'),
          ...shown.map((c) => line(c, paint(colour, 'shown'.padEnd(7), 'dim'))),
        ]
      : []),
    ...(r.coverage?.length ? [paint(colour, 'code points:', 'dim'), ...coverageLines(r.coverage)] : []),
    '',
    ...warnings.map((w) => `${paint(colour, 'warning:', 'yellow')} ${w}`),
    `verdict: ${verdictPainted(r.valid, colour).trimEnd()}  (seed ${r.config.seed})${conditions.length === 0 ? '' : conditions.length <= 2 ? `  — the run ${conditionsText(conditions)}` : `  — the run did not run as configured in ${conditions.length} ways:`}`,
    // Past two, one line each: one line of all of them ran to 700 characters.
    ...(conditions.length > 2 ? conditions.map((c) => `  - ${c.message}`) : []),
    ...(headline ? [paint(colour, headline, 'bold')] : []),
    ...(r.stoppedEarly ? [stoppedEarlyLine(r.stoppedEarly, r.config.timeLimitS)] : []),
    ...expectation,
    `run folder: ${r.dir}`,
  ].join('\n');
}

/** How a --stop-on-violation run ended: when, of its time limit, and on what. */
export const stoppedEarlyLine = (s: { atS: number; why: string }, timeLimitS: number) =>
  `stopped early at ${s.atS} s of ${timeLimitS} s (--stop-on-violation): ${s.why}`;
