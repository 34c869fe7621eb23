/**
 * report.html built on a thread, so that Ctrl-C is heard while it is built (building is
 * synchronous: on the runner's thread a signal handler would only run once it was done).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { runFolder } from '../../test/unit/run-folder-fixture.js';
import { interruptibleReport } from './reported-run.js';

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

  it('a run that had its Ctrl-C before (interrupted, then checked) still gets its report', async () => {
    const abort = new AbortController();
    abort.abort('SIGINT');
    const built = await interruptibleReport(folder(), abort.signal);
    expect(built && existsSync(built.reportPath)).toBe(true);
  });
});
