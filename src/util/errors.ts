/** The message of anything thrown: an Error's message, or the thrown value as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** For logs: an Error's stack (which starts with its message), or the thrown value as a string. */
export function errorStack(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

/**
 * A mistake in what the user gave us (a flag, a config, a history file). The CLI prints
 * its message as one line, with no stack trace, and exits 3. Messages name the problem
 * and the fix: "unknown backend 'foo': choose one of redis, redlock".
 */
export class UserError extends Error {
  override name = 'UserError';
}

/** The exit code for a user's mistake or a harness failure. */
export const EXIT_ERROR = 3;
