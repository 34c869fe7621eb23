/**
 * Turning a decoded record (a JSON object, an EDN map) into an Op, with one clear error per
 * problem. Every reader goes through here, so the three formats agree on what an op is.
 */

import { printable } from '../util/printable.js';
import { HistoryError } from './errors.js';
import { storedGrantProblem } from './grant-fields.js';
import { OP_TYPES, type Op, type OpType, type Process } from './op.js';

export interface OpFields {
  type?: unknown;
  f?: unknown;
  process?: unknown;
  time?: unknown;
  index?: unknown;
  key?: unknown;
  value?: unknown;
  error?: unknown;
}

/**
 * `where` says where the record came from ("line 12"); `position` is its place in the
 * history, used as the index when the record has none.
 */
export function toOp(fields: OpFields, where: string, position: number): Op {
  const type = fields.type;
  if (type === undefined || type === null) {
    throw new HistoryError(`${where}: the operation has no type: expected one of ${OP_TYPES.join(', ')}`);
  }
  if (typeof type !== 'string' || !(OP_TYPES as readonly string[]).includes(type)) {
    throw new HistoryError(`${where}: unknown type ${show(type)}: expected one of ${OP_TYPES.join(', ')}`);
  }
  const f = fields.f;
  if (typeof f !== 'string' || f === '') {
    throw new HistoryError(`${where}: the operation has no f (what it does, e.g. read or acquire)`);
  }
  const index = indexOf(fields.index, where, position);
  const process = processOf(fields.process, where);
  const time = timeOf(fields.time, where);
  let key: string | undefined;
  if (fields.key !== undefined && fields.key !== null) {
    if (typeof fields.key !== 'string' && typeof fields.key !== 'number') {
      throw new HistoryError(`${where}: key must be a string, got ${show(fields.key)}`);
    }
    key = internKey(String(fields.key));
  }
  const value = fields.value;
  if (f === 'acquire' && type === 'ok') {
    const problem = storedGrantProblem(value);
    if (problem)
      throw new HistoryError(
        `${where}: the acquire's grant is one no lock service gives: ${problem}; correct the value or remove the operation`,
      );
  }
  // Each shape built whole, fields in one order: an op with a property added later takes a
  // second allocation for it, and a history holds millions of ops.
  let op: Op;
  if (key !== undefined)
    op =
      value !== undefined
        ? { index, type: type as OpType, f, process, time, key, value }
        : { index, type: type as OpType, f, process, time, key };
  else
    op =
      value !== undefined
        ? { index, type: type as OpType, f, process, time, value }
        : { index, type: type as OpType, f, process, time };
  if (fields.error !== undefined && fields.error !== null) {
    op.error = typeof fields.error === 'string' ? fields.error : JSON.stringify(fields.error);
  }
  return op;
}

/**
 * One string per key: a history names a few keys millions of times, and JSON.parse makes a
 * new string each time. Bounded, so that a history of endless distinct keys holds no more.
 */
const keys = new Map<string, string>();
const MAX_INTERNED_KEYS = 10_000;

function internKey(key: string): string {
  const kept = keys.get(key);
  if (kept !== undefined) return kept;
  if (keys.size >= MAX_INTERNED_KEYS) keys.clear();
  keys.set(key, key);
  return key;
}

/** An op's fields in the order toOp builds them. */
const FIELD_ORDER = ['index', 'type', 'f', 'process', 'time', 'key', 'value', 'error'];

/**
 * A record JSON.parse made for one op, as the op itself, when it already is the op toOp
 * would build: the fields toOp keeps, in its order, each as toOp would keep it (a history
 * lockchaos wrote always is). Undefined otherwise: toOp then builds the op, or names what
 * is wrong. A million-op history so makes a million objects fewer for the collector to copy.
 */
export function adoptOp(record: Record<string, unknown>): Op | undefined {
  let k = 0;
  for (const name in record) {
    while (k < FIELD_ORDER.length && FIELD_ORDER[k] !== name) k++;
    if (k++ === FIELD_ORDER.length) return undefined;
  }
  const { index, type, f, process, time, key, error } = record;
  if (
    typeof index === 'number' &&
    Number.isSafeInteger(index) &&
    index >= 0 &&
    (type === 'invoke' || type === 'ok' || type === 'fail' || type === 'info') &&
    typeof f === 'string' &&
    f !== '' &&
    ((typeof process === 'number' && Number.isSafeInteger(process)) || process === 'nemesis') &&
    typeof time === 'number' &&
    Number.isFinite(time) &&
    (key === undefined || typeof key === 'string') &&
    (error === undefined || typeof error === 'string') &&
    // A grant out of range is toOp's to name (checkers/op-values.ts).
    !(f === 'acquire' && type === 'ok' && storedGrantProblem(record.value) !== undefined)
  ) {
    if (key !== undefined) record.key = internKey(key);
    return record as unknown as Op;
  }
  return undefined;
}

function processOf(p: unknown, where: string): Process {
  if (p === 'nemesis') return 'nemesis';
  if (typeof p === 'number' && Number.isSafeInteger(p)) return p;
  if (p === undefined || p === null) throw new HistoryError(`${where}: the operation has no process`);
  throw new HistoryError(`${where}: process must be an integer or "nemesis", got ${show(p)}`);
}

function timeOf(t: unknown, where: string): number {
  // Hand-written and converted histories often carry no time; order is the history's order.
  if (t === undefined || t === null) return 0;
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  throw new HistoryError(`${where}: time must be a number of nanoseconds, got ${show(t)}`);
}

function indexOf(i: unknown, where: string, position: number): number {
  if (i === undefined || i === null) return position;
  if (typeof i === 'number' && Number.isSafeInteger(i) && i >= 0) return i;
  throw new HistoryError(`${where}: index must be a non-negative integer, got ${show(i)}`);
}

/** A value from the history in a message: short, and printable (src/util/printable.ts). */
function show(v: unknown): string {
  const s = printable(typeof v === 'string' ? `'${v}'` : (JSON.stringify(v) ?? String(v)));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
