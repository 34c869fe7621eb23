import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../checkers/result.js';
import { DEFAULTS } from '../run-data/config.js';
import { colourFor, paint } from '../util/terminal.js';
import { conditionsClause } from './headline.js';
import { formatSummary } from './summary.js';

const check = (checker: string, valid: CheckResult['valid'], counts: boolean, summary: string) =>
  ({ checker, valid, counts, summary, details: {} }) as unknown as CheckResult;

/** A valid fenced run: its holders overlapped (shown), the store kept them out (counted). */
const fenced = {
  dir: 'store/x/1',
  valid: true as const,
  config: { ...DEFAULTS, fencing: true, seed: 1 },
  results: [
    check('mutual-exclusion', false, false, '32 overlapping holds of 238'),
    check('linearizable(mutex)', false, false, 'not linearizable: op 148'),
    check('lost-updates', true, true, '232 acknowledged adds, all in the final read of 232'),
    check('fencing', true, true, '238 grants with growing tokens'),
    check('perf', true, false, 'acquire: 249 attempts'),
  ],
};

describe('the run summary', () => {
  it('puts the counted checkers first and marks the shown ones, so a valid run reads no INVALID', () => {
    const text = formatSummary(fenced);
    expect(text.split('\n').slice(0, 7)).toEqual([
      'checkers:',
      '  lost-updates         valid    232 acknowledged adds, all in the final read of 232',
      '  fencing              valid    238 grants with growing tokens',
      'shown, not counted:',
      '  mutual-exclusion     shown    32 overlapping holds of 238',
      '  linearizable(mutex)  shown    not linearizable: op 148',
      '  perf                 shown    acquire: 249 attempts',
    ]);
    expect(text).not.toContain('INVALID');
    expect(text).toContain('verdict: valid  (seed 1)');
    expect(text).not.toContain('\x1b[');
  });

  it('says the verdict in one sentence under the verdict line, when given one', () => {
    const headline =
      "Process 1's stale write (token 34) was rejected by the store after it paused 1.66 s (client-pause).";
    const lines = formatSummary({ ...fenced, headline }).split('\n');
    expect(lines[lines.indexOf('verdict: valid  (seed 1)') + 1]).toBe(headline);
    expect(formatSummary(fenced)).not.toContain('stale write');
  });

  it('colours the verdicts on a terminal: INVALID red, valid green, shown dim', () => {
    const text = formatSummary({ ...fenced, valid: false }, { colour: true });
    expect(text).toContain(`verdict: ${paint(true, 'INVALID', 'red', 'bold')}`);
    expect(text).toContain(paint(true, 'valid  ', 'green'));
    expect(text).toContain(paint(true, 'shown  ', 'dim'));
  });

  it('colours only a TTY, never under NO_COLOR, TERM=dumb or CI; FORCE_COLOR wins', () => {
    expect(colourFor({ isTTY: true }, {})).toBe(true);
    expect(colourFor({ isTTY: false }, {})).toBe(false);
    expect(colourFor({}, {})).toBe(false);
    expect(colourFor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(colourFor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(colourFor({ isTTY: true }, { TERM: 'xterm-256color' })).toBe(true);
    expect(colourFor({ isTTY: true }, { CI: 'true' })).toBe(false);
    expect(colourFor({ isTTY: true }, { CI: 'false' })).toBe(true);
    expect(colourFor({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });
});

describe('a run that did not run as configured, in the summary', () => {
  const broken = {
    kind: 'client-program-broken' as const,
    message: "client 2's program broke (exit code 1): the request ended unknown and the client stopped there",
  };

  it("says a program's breaking once: on the verdict line, not again in the headline", () => {
    const headline = `${conditionsClause([broken]).replace(/^n/, 'N')}; no violation in what did run, which is not evidence for this configuration.`;
    const text = formatSummary({ ...fenced, valid: 'unknown', conditions: [broken], headline });
    expect(text.split("client 2's program broke")).toHaveLength(2);
    expect(text).toContain('verdict: unknown  (seed 1)  — the run did not run as configured: client 2');
    expect(text).toContain('\nNo violation in what did run, which is not evidence for this configuration.\n');
  });

  it('lists many conditions a line each, and the headline names the first and how many more', () => {
    const lost = [0, 1, 2, 3, 4].map((client) => ({
      kind: 'worker-lost' as const,
      message: `client worker ${client} killed by SIGINT at 2.1 s: the run went on with fewer clients`,
    }));
    expect(conditionsClause(lost)).toBe(
      'not run as configured: client worker 0 killed by SIGINT at 2.1 s: the run went on with fewer clients; and 4 more',
    );
    const text = formatSummary({ ...fenced, valid: 'unknown', conditions: lost });
    expect(text).toContain('— the run did not run as configured in 5 ways:\n  - client worker 0 killed');
    for (const line of text.split('\n')) expect(line.length, line).toBeLessThan(200);
  });
});
