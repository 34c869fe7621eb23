/** The message of the UserError that `fn` throws (a test fails if it throws anything else, or nothing). */
import { expect } from 'vitest';
import { UserError } from '../../src/util/errors.js';

export function userErrorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error('expected a UserError, and nothing was thrown');
}
