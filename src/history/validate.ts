/**
 * Turning a decoded record (a JSON object, an EDN map) into an Op, with one clear error per
 * problem. Every reader goes through here, so the three formats agree on what an op is.
 */
import { HistoryError } from './errors.js';
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
  const op: Op = {
    index: indexOf(fields.index, where, position),
    type: type as OpType,
    f,
    process: processOf(fields.process, where),
    time: timeOf(fields.time, where),
  };
  if (fields.key !== undefined && fields.key !== null) {
    if (typeof fields.key !== 'string' && typeof fields.key !== 'number') {
      throw new HistoryError(`${where}: key must be a string, got ${show(fields.key)}`);
    }
    op.key = String(fields.key);
  }
  if (fields.value !== undefined) op.value = fields.value;
  if (fields.error !== undefined && fields.error !== null) {
    op.error = typeof fields.error === 'string' ? fields.error : JSON.stringify(fields.error);
  }
  return op;
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

function show(v: unknown): string {
  const s = typeof v === 'string' ? `'${v}'` : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
