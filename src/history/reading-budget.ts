/**
 * Reading a history counts against a check's memory budget as it goes, not after: the
 * parsers look at the estimate every few thousand operations and stop once it is past the
 * budget. An EDN history of 65 MB under a budget of 100 MiB peaked at 1.17 GB, read whole
 * before its size was weighed.
 */
import { checkDeadline, type Deadline } from './reading-deadline.js';

/**
 * Memory a history takes to read, estimated: its text, then about 160 bytes per operation
 * (measured on our JSON Lines and Porcupine's kv logs: 100-140).
 */
export function readingBytes(textLength: number, operations: number): number {
  return textLength + operations * 160;
}

/** Thrown once reading a history passed its budget (not a mistake in the file): `bytes` is the estimate then. */
export class ReadingOverBudget extends Error {
  override name = 'ReadingOverBudget';
  constructor(readonly bytes: number) {
    super('the memory budget ran out reading the history');
  }
}

/** What a parser holds itself to: the time limit's deadline, the memory budget in bytes. */
export interface ParseLimits {
  deadline?: Deadline;
  budgetBytes?: number;
}

/** How many operations a parser reads between looks at its limits. */
export const LOOK_EVERY = 4096;

/** Throws ReadingTimedOut or ReadingOverBudget once a limit is passed, `operations` read from a text of `textLength`. */
export function checkReading(limits: ParseLimits, textLength: number, operations: number): void {
  checkDeadline(limits.deadline);
  if (limits.budgetBytes === undefined) return;
  const bytes = readingBytes(textLength, operations);
  if (bytes > limits.budgetBytes) throw new ReadingOverBudget(bytes);
}
