/**
 * Our history format: history.jsonl, one Op as a JSON object per line, appended as the run
 * goes. A run killed mid-write leaves a truncated last line, which we name rather than guess
 * at: the history before it is intact, but checking a silently shortened history could
 * hide the very operation that matters.
 */
import { HistoryError } from './errors.js';
import type { Op } from './op.js';
import { checkDeadline } from './reading-deadline.js';
import { adoptOp, toOp } from './validate.js';

/**
 * The ops of a JSON Lines text. A piece of a larger one: `firstLine` is its first line's
 * number, and its ops are appended to `ops` (their positions counting from the whole's).
 */
export function parseJsonl(
  text: string,
  source = 'history.jsonl',
  firstLine = 1,
  ops: Op[] = [],
  deadline?: number,
): Op[] {
  // A final newline leaves nothing after it; any other last line was cut short if it fails
  // to parse. Lines are found one at a time, not split into an array all at once: a large
  // history's lines would cost as much again as its text.
  const complete = text.endsWith('\n');
  // Named only when something is wrong: a million lines would make a million names.
  const where = (i: number) => `${source} line ${firstLine + i}`;
  for (let start = 0, i = 0; start < text.length; i++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    const last = end === text.length;
    start = end + 1;
    if (line === '') continue;
    // Parsing counts against a check's time limit (read.ts): looked at every 4096 lines.
    if (deadline !== undefined && (i & 4095) === 0) checkDeadline(deadline);
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (err) {
      if (last && !complete) {
        throw new HistoryError(
          `${where(i)} (the last) is truncated: expected a complete JSON object (the run was probably killed while writing it; remove the line to check the rest)`,
        );
      }
      throw new HistoryError(`${where(i)}: expected one operation as a JSON object: ${(err as Error).message}`);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new HistoryError(
        `${where(i)}: expected one operation as a JSON object, got ${Array.isArray(raw) ? 'an array' : JSON.stringify(raw)}`,
      );
    }
    const record = raw as Record<string, unknown>;
    ops.push(adoptOp(record) ?? toOp(record, where(i), ops.length));
  }
  return ops;
}
