import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { checkLinearizable } from '../linearizable/check-linearizable.js';

describe('mutex: words that match what happened', () => {
  it('names an acquire by both ends, invocation and completion', () => {
    // p0 holds; p1's acquire is invoked while p0 holds and completes much later, still while p0 holds.
    const h = new H().acquire(0).invoke(1, 'acquire', 'L').invoke(2, 'acquire', 'L').ok(1, 'acquire', 'L', {});
    const r = checkLinearizable(h.ops, 'mutex');
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/op 2 \(process 1: acquire, completed at op 4\)/);
  });

  it('says why a process cannot take a lock the model has it holding: its failed release counts as never made', () => {
    const h = new H().acquire(4).invoke(4, 'release', 'L').fail(4, 'release', 'L', undefined, 'not-held').acquire(4);
    const r = checkLinearizable(h.ops, 'mutex');
    expect(r.valid).toBe(false);
    expect(r.summary).not.toMatch(/held by process 4/);
    expect(r.summary).toMatch(
      /acquire by process 4, which the model has holding the lock already \(a release that failed counts as never made\)/,
    );
  });
});
