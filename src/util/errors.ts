/** The message of anything thrown: an Error's message, or the thrown value as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** For logs: an Error's stack (which starts with its message), or the thrown value as a string. */
export function errorStack(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
