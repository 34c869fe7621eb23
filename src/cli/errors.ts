/**
 * A mistake in what the user gave us (a flag, a config, a history file). The CLI prints
 * its message as one line, with no stack trace, and exits 3. Messages name the problem
 * and the fix: "unknown backend 'foo': choose one of redis, redlock".
 */
export class UserError extends Error {
  override name = 'UserError';
}

export const EXIT_ERROR = 3;
