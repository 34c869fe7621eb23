import { describe, expect, it } from 'vitest';
import { plural } from './plural.js';

describe('plural', () => {
  it('is singular for one only', () => {
    expect([0, 1, 2].map((n) => plural(n, 'cell'))).toEqual(['0 cells', '1 cell', '2 cells']);
  });
  it('takes an irregular plural', () => {
    expect(plural(2, 'was', 'were')).toBe('2 were');
  });
});
