import { describe, expect, it } from 'vitest';
import { H } from '../test/unit/history-builder.js';
import { CHECK_INTERRUPTED, checkRun, interruptibleCheckRun } from './checks.js';

const run = { workload: 'lock-set', fencing: false };
const opts = { storeKey: 'lockchaos:set' };
const history = new H()
  .acquire(0, undefined, 'lockchaos:lock')
  .acquire(1, undefined, 'lockchaos:lock')
  .invoke(0, 'write', 'lockchaos:set', [1])
  .ok(0, 'write', 'lockchaos:set', [1]).ops;

describe('checking on a thread that Ctrl-C ends', () => {
  it('gives what checking on this thread gives (but for the times and memory it measured)', async () => {
    const signal = new AbortController().signal;
    const verdicts = (results: unknown) =>
      (results as { checker: string; valid: unknown; counts: boolean }[]).map(({ checker, valid, counts }) => ({
        checker,
        valid,
        counts,
      }));
    const threaded = await interruptibleCheckRun(history, run, opts, signal);
    expect(verdicts(threaded)).toEqual(verdicts(checkRun(history, run, opts)));
    expect(verdicts(threaded).find((r) => r.checker === 'mutual-exclusion')?.valid).toBe(false);
  });

  it('answers interrupted once aborted, without waiting for the search', async () => {
    const stop = new AbortController();
    const checking = interruptibleCheckRun(history, run, opts, stop.signal);
    stop.abort('SIGINT'); // before the thread has even loaded its modules
    expect(await checking).toBe(CHECK_INTERRUPTED);
  });
});
