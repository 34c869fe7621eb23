/**
 * Our history format: history.jsonl, one Op as a JSON object per line, appended as the run
 * goes. A run killed mid-write leaves a truncated last line, which we name rather than guess
 * at: the history before it is intact, but checking a silently shortened history could
 * hide the very operation that matters.
 */
import { HistoryError } from './errors.js';
import type { Op } from './op.js';
import { checkReading, LOOK_EVERY, type ParseLimits } from './reading-budget.js';
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
  limits: ParseLimits = {},
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
    // Parsing counts against a check's time limit and memory budget (read.ts): looked at every few thousand lines.
    if (i % LOOK_EVERY === 0) checkReading(limits, text.length, ops.length);
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
    const op = adoptOp(record) ?? toOp(record, where(i), ops.length);
    if (Array.isArray(op.value)) op.value = sharedValue(op.value, ops);
    ops.push(op);
  }
  return ops;
}

/** How many ops back sharedValue looks for an equal value. */
const SHARE_WINDOW = 32;

/**
 * `value`, or an equal array (the same elements, each a number or string) of one of the
 * last SHARE_WINDOW ops before it: a read answers the set a write just wrote, and JSON.parse
 * makes another array of it each time (a million-op lock-set history: half its set
 * elements). Ops are read-only, so they may share it.
 */
function sharedValue(value: unknown[], ops: readonly Op[]): unknown[] {
  const n = value.length;
  if (n === 0) return value;
  for (let j = ops.length - 1, stop = Math.max(0, ops.length - SHARE_WINDOW); j >= stop; j--) {
    const other = ops[j].value;
    if (!Array.isArray(other) || other.length !== n) continue;
    let k = 0;
    while (k < n && Object.is(other[k], value[k]) && typeof value[k] !== 'object') k++;
    if (k === n) return other;
  }
  return value;
}
