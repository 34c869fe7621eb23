import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { judge } from '../campaign/expect.js';
import { buildRunReport } from '../report/html.js';
import { formatSummary } from '../report/summary.js';
import { badGrants, healCounted, interrupted, overrun, runExitCode, runVerdict, workerLost } from './conditions.js';
import { DEFAULTS, type TestConfig } from './config.js';

describe('a run that did not run as configured', () => {
  it('grants the clients refused: named with the backend and the fix, exit 3', () => {
    const ok = new H().acquire(0, 1, 'l').ops;
    expect(badGrants(ok, 'mine')).toBeUndefined();
    const refused = new H()
      .invoke(0, 'acquire', 'l')
      .info(0, 'acquire', 'l', undefined, 'refused grant: token is NaN, not a finite number')
      .invoke(5, 'acquire', 'l')
      .info(5, 'acquire', 'l', undefined, 'refused grant: token is NaN, not a finite number').ops;
    const c = badGrants(refused, 'mine');
    expect(c).toEqual({
      kind: 'bad-grant',
      message:
        'backend mine returned 2 grants the client refused, first at op #1: token is NaN, not a finite number (recorded as info): make its acquire return validityMs as a number of ms, 0 or more, a token (if any) as a whole number from 0 to 2^53-1, and votes as a finite number',
    });
    expect(runExitCode(runVerdict(true, [c as NonNullable<typeof c>]), [c as NonNullable<typeof c>])).toBe(3);
  });

  it('an interruption: verdict valid becomes unknown, exit 130', () => {
    const c = interrupted('SIGINT', 2.71, 20);
    expect(c).toEqual({ kind: 'interrupted', message: 'interrupted (SIGINT) at 2.7 s of 20 s' });
    expect(runVerdict(true, [c])).toBe('unknown');
    expect(runExitCode(runVerdict(true, [c]), [c])).toBe(130);
    // A violation found before the interruption is still one.
    expect(runVerdict(false, [c])).toBe(false);
    expect(runExitCode(false, [c])).toBe(130);
    expect(interrupted(undefined, undefined, 20).message).toBe('interrupted (aborted) before the workload began');
  });

  it('a worker lost or the store lost: a harness failure, exit 3', () => {
    const lost = workerLost({ client: 2, code: null, signal: 'SIGKILL', atS: 4.14 });
    expect(lost.message).toBe('client worker 2 killed by SIGKILL at 4.1 s: the run went on with fewer clients');
    expect(runExitCode('unknown', [lost])).toBe(3);
    expect(runExitCode(false, [{ kind: 'store-lost', message: 'x' }])).toBe(3);
    expect(runExitCode(true, [])).toBe(0);
    expect(runExitCode('unknown', [])).toBe(2);
  });

  it('a starved host that turned 10 s into 600 s overran; a little slack is not', () => {
    expect(overrun(600, 10, 10)?.message).toBe(
      "the workload took 600 s for a time limit of 10 s (at most 25 s with the clients' grace): the machine was too slow or starved, so timings were not as configured",
    );
    expect(overrun(24, 10, 10)).toBeUndefined();
    expect(overrun(130, 100, 10)).toBeUndefined();
    expect(overrun(140, 100, 10)?.kind).toBe('overran');
  });

  it("the wait for the faults to end counts when a fault's stop failed (a node removed from outside), not when they healed", () => {
    expect(healCounted(20, false)).toEqual({ s: 0 });
    const failed = healCounted(20, true);
    expect(failed.s).toBe(20);
    // A 10 s run whose restart waited 20 s on a node that was gone, then 1 s of stop.
    expect(overrun(10 + 0 + 1, 10, 10)).toBeUndefined();
    expect(overrun(10 + failed.s + 1, 10, 10, failed.cause)?.message).toBe(
      "the workload took 31 s for a time limit of 10 s (at most 25 s with the clients' grace): a fault's stop failed after 20 s past the time limit, the clients running on, so timings were not as configured",
    );
  });

  it('is in the summary, report.html and the campaign cell, wherever the verdict is', () => {
    const config: TestConfig = { ...DEFAULTS, name: 't', seed: 5, workload: 'mutex' };
    const conditions = [interrupted('SIGINT', 2.7, 20)];
    const summary = formatSummary({ dir: 'd', valid: 'unknown', results: [], conditions, config });
    expect(summary).toContain(
      'verdict: unknown  (seed 5)  — the run did not run as configured: interrupted (SIGINT) at 2.7 s of 20 s',
    );

    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-cond-'));
    const h = new H().acquire(0).release(0).acquire(1).release(1);
    writeFileSync(join(dir, 'test.json'), JSON.stringify(config));
    writeFileSync(join(dir, 'history.jsonl'), toJsonl(h.ops));
    writeFileSync(join(dir, 'results.json'), JSON.stringify({ valid: 'unknown', conditions, results: [] }));
    const { run, reportPath } = buildRunReport(dir);
    expect(run.conditions).toEqual(conditions);
    const html = readFileSync(reportPath, 'utf8');
    expect(html).toMatch(/<title>unknown \(INTERRUPTED\) · t · seed 5<\/title>/);
    expect(html).toContain('id="verdict-condition"');
    expect(html).toMatch(/id="not-as-configured".*interrupted \(SIGINT\) at 2\.7 s of 20 s/s);
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('name="run as configured"');

    const worker = [workerLost({ client: 1, code: 1, signal: null })];
    expect(judge('valid', { valid: 'unknown', results: [], conditions: worker })).toEqual({
      actual: 'error',
      met: false,
      message:
        'the run did not run as configured: client worker 1 exited with code 1: the run went on with fewer clients (verdict unknown)',
    });
    expect(judge('valid', { valid: 'unknown', results: [], conditions }).actual).toBe('aborted');
  });
});
