/** Why a failed campaign failed, as summary.json's failedBy says it: one line, bounded, an internal error said as one. */
import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { failureText } from './campaign-record.js';

describe('failureText', () => {
  it('says an internal error with its kind, in one line of at most 500 characters', () => {
    expect(failureText(new Error('page script x.bundle.js is missing'))).toBe(
      'internal error: page script x.bundle.js is missing',
    );
    expect(failureText(new TypeError('a\n  b'))).toBe('internal error: TypeError: a b');
    const long = failureText(new Error('x'.repeat(5000)));
    expect(long).toHaveLength('internal error: '.length + 500);
    expect(long.endsWith('x…')).toBe(true);
    expect(failureText('thrown text')).toBe('internal error: thrown text');
  });

  it('says bad input met late as the command says it, not as a bug', () => {
    expect(failureText(new UserError('no Docker engine answers'))).toBe('no Docker engine answers');
  });
});
