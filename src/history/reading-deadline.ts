/**
 * Reading a history counts against a check's time limit: a deadline, by performance.now(),
 * that the reader and the parsers look at as they go, so that a huge file ends the check
 * as unknown when its time is up, not after it has been read whole.
 */

/** A time by performance.now(). */
export type Deadline = number;

/** Thrown once reading or parsing a history passed its deadline (not a mistake in the file). */
export class ReadingTimedOut extends Error {
  override name = 'ReadingTimedOut';
}

/** Throws ReadingTimedOut once `deadline` has passed. */
export function checkDeadline(deadline: Deadline | undefined): void {
  if (deadline !== undefined && performance.now() > deadline) throw new ReadingTimedOut('the time limit ran out');
}
