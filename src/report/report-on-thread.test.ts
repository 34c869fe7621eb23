/**
 * report.html built on a thread, so that Ctrl-C is heard while it is built (building is
 * synchronous: on the runner's thread a signal handler would only run once it was done).
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { runFolder } from '../../test/unit/run-folder-fixture.js';
import { UserError } from '../util/errors.js';
import { interruptibleReport } from './report-on-thread.js';

const L = 'lockchaos:lock';
const folder = () => runFolder(toJsonl(new H().acquire(0, undefined, L).release(0, L).ops));

describe('interruptibleReport', () => {
  it('builds report.html on its thread, with the headline', async () => {
    const built = await interruptibleReport(folder(), new AbortController().signal);
    expect(built && existsSync(built.reportPath)).toBe(true);
    expect(typeof built?.headline).toBe('string');
  });

  it('Ctrl-C while it is built: ends at once, without a report', async () => {
    const abort = new AbortController();
    const built = interruptibleReport(folder(), abort.signal);
    abort.abort('SIGINT');
    expect(await built).toBeUndefined();
  });

  it('names the steps: writing once, before the files are replaced', async () => {
    const said: string[] = [];
    const built = await interruptibleReport(folder(), undefined, { writing: () => said.push('writing') });
    expect(said).toEqual(['writing']);
    expect(built?.run.operations).toBe(4);
    expect(built?.run).not.toHaveProperty('history');
  });

  it('a folder that is no run: the UserError it was, one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-not-a-run-'));
    const built = interruptibleReport(dir, undefined);
    await expect(built).rejects.toBeInstanceOf(UserError);
    await expect(built).rejects.toThrow(/not a run folder|test\.json/);
  });

  it('a report that does not fit its heap bound is built again without one, and says so', async () => {
    const bounds: number[] = [];
    const said: string[] = [];
    const built = await interruptibleReport(folder(), undefined, {
      boundMiB: 1,
      unbounded: (mib) => bounds.push(mib),
      writing: () => said.push('writing'),
    });
    expect(bounds).toEqual([1]);
    expect(said).toEqual(['writing']);
    expect(built && existsSync(built.reportPath)).toBe(true);
  });

  it('a run that had its Ctrl-C before (interrupted, then checked) still gets its report', async () => {
    const abort = new AbortController();
    abort.abort('SIGINT');
    const built = await interruptibleReport(folder(), abort.signal);
    expect(built && existsSync(built.reportPath)).toBe(true);
  });
});
