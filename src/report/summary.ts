/** The short summary printed after a run: per checker its verdict, counts, first violation. */
import { availabilityShortfall } from '../../checkers/availability.js';
import { evidenceWarnings } from '../../checkers/evidence.js';
import { type CheckResult, type Validity, verdictName, verdictWord } from '../../checkers/result.js';
import { conditionsText, type RunCondition } from '../runner/conditions.js';
import { scenarioByName } from '../scenarios/index.js';

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
  const mode = config.fencing ? 'fenced' : 'unfenced';
  const short = scenario.availability === undefined ? undefined : availabilityShortfall(results, scenario.availability);
  const as = expected !== actual ? 'NOT as expected' : short ? `NOT as expected: ${short}` : 'as expected';
  return [`scenario ${scenario.name} (${mode}) expects ${expected}: ${as}`];
}

export function formatSummary(r: {
  dir: string;
  valid: Validity;
  results: CheckResult[];
  conditions?: readonly RunCondition[];
  config: { seed: number; scenario?: string; fencing: boolean; timeLimitS: number };
  stoppedEarly?: { atS: number; why: string };
}): string {
  const conditions = r.conditions ?? [];
  const warnings = evidenceWarnings(r.results);
  const width = Math.max(...r.results.map((c) => c.checker.length));
  const lines = r.results.map((c) => {
    const note = c.counts === false ? ' (shown, not counted)' : '';
    return `  ${c.checker.padEnd(width)}  ${verdictWord(c.valid).padEnd(7)}  ${c.summary}${note}`;
  });
  return [
    'checkers:',
    ...lines,
    '',
    ...warnings.map((w) => `warning: ${w}`),
    `verdict: ${verdictWord(r.valid)}  (seed ${r.config.seed})${conditions.length ? `  — the run ${conditionsText(conditions)}` : ''}`,
    ...(r.stoppedEarly ? [stoppedEarlyLine(r.stoppedEarly, r.config.timeLimitS)] : []),
    ...expectationLine(r.config, r.valid, r.results),
    `run folder: ${r.dir}`,
  ].join('\n');
}

/** How a --stop-on-violation run ended: when, of its time limit, and on what. */
export const stoppedEarlyLine = (s: { atS: number; why: string }, timeLimitS: number) =>
  `stopped early at ${s.atS} s of ${timeLimitS} s (--stop-on-violation): ${s.why}`;
