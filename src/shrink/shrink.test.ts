import { describe, expect, it } from 'vitest';
import { trialOutcome } from './shrink.js';

describe("a shrink trial's outcome", () => {
  it('is still broken only when INVALID and counted: an uncounted INVALID is not kept, and says why', () => {
    expect(trialOutcome(false, true)).toEqual({ invalid: true, verdict: 'INVALID' });
    expect(trialOutcome(false, false)).toEqual({
      invalid: false,
      verdict: 'INVALID, not counted (only the lease argument)',
    });
    expect(trialOutcome(true, false).invalid).toBe(false);
    expect(trialOutcome('unknown', true).invalid).toBe(false);
  });
});
