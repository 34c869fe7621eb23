/** The short summary printed after a run: per checker its verdict, counts, first violation. */
import type { CheckResult, Validity } from '../../checkers/result.js';
import { scenarioByName } from '../scenarios/index.js';

const word = (v: Validity) => (v === true ? 'valid' : v === false ? 'INVALID' : 'unknown');

export function formatSummary(r: {
  dir: string;
  valid: Validity;
  results: CheckResult[];
  config: { seed: number };
}): string {
  const width = Math.max(...r.results.map((c) => c.checker.length));
  const lines = r.results.map((c) => {
    const note = c.counts === false ? ' (shown, not counted)' : '';
    return `  ${c.checker.padEnd(width)}  ${word(c.valid).padEnd(7)}  ${c.summary}${note}`;
  });
  return ['checkers:', ...lines, '', `verdict: ${word(r.valid)}  (seed ${r.config.seed})`, `run folder: ${r.dir}`].join(
    '\n',
  );
}
