import { describe, expect, it } from 'vitest';
import { calloutClass, STYLE_COLORS, violationStyle, whoText } from './finding-style.js';
import type { Violation } from './report-data-types.js';

const finding = (kind: string, counted: boolean): Violation =>
  ({ checker: 'mutual-exclusion', kind, counted, words: '', marks: [], view: [0, 1] }) as unknown as Violation;

describe('how a finding is drawn', () => {
  it('is red only when it counts, green for a rejected stale write, amber otherwise', () => {
    expect(violationStyle(finding('overlap', true))).toBe('counted');
    expect(violationStyle(finding('turned-away', true))).toBe('counted');
    expect(violationStyle(finding('turned-away', false))).toBe('kept-out');
    expect(violationStyle(finding('overlap', false))).toBe('not-counted');
    expect(STYLE_COLORS.counted).toBe('#dc2626');
  });

  it('titles the focus box by what the finding is', () => {
    expect(whoText(finding('overlap', true))).toBe('mutual-exclusion');
    expect(whoText(finding('overlap', false))).toBe('mutual-exclusion — shown, not counted toward the verdict');
    expect(whoText(finding('turned-away', false))).toMatch(/^fencing at work: the store rejected a stale write/);
    expect(calloutClass('counted')).toBe('callout');
    expect(calloutClass('kept-out')).toBe('callout ok');
    expect(calloutClass('not-counted')).toBe('callout undecided');
  });
});
