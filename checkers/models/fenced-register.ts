/**
 * The data store a lock protects, in fenced mode: `write` [V, token] applies iff the token is
 * not older than the largest token accepted so far; `read` answers V.
 *
 * The store answers "rejected" to a stale token, which the history records as `fail` (so the
 * write is removed like every fail). Hence:
 * - an ok write whose token is older than the largest accepted is illegal: a stale token was
 *   accepted, the very thing fencing exists to prevent;
 * - an info write, if it takes effect, applies iff its token is not stale, and otherwise has
 *   no effect (the store would have rejected it; the client never heard).
 */
import { type Model, type OpInput, type PartOp, reject } from './linearizable-model.js';
import { observedIdByRead, ValueIds } from './value-ids.js';
import {
  describeRead,
  impossibleObservation,
  readRejection,
  reduceByObservation,
  showValue,
  valueKey,
} from './values.js';

export interface FencedState {
  value: unknown;
  /** The largest token accepted so far; null before any write. */
  token: number | null;
}

/** Which value each operation writes and reads, as ids of one pass's ValueIds (value-ids.ts). */
const rolesWith = (ids: ValueIds) => ({
  produces: (op: PartOp) => (op.input.f === 'write' ? ids.id(write(op.input)[0]) : undefined),
  observes: observedIdByRead(ids),
  subject: 'the store',
  shownValue: (op: PartOp) => showValue(op.output.value),
});

export const fencedRegister: Model<FencedState> = {
  name: 'fenced-register',
  description: 'a store that applies write [V token] iff token >= the largest accepted token; read answers V',
  fs: ['read', 'write'],
  init: (initial) => ({ value: initial ?? null, token: null }),
  validate(input) {
    if (input.f === 'read') return undefined;
    if (input.f === 'write') {
      const v = input.value;
      if (Array.isArray(v) && v.length === 2 && tokenOf(v[1]) !== undefined) return undefined;
      return `fenced-register write needs the value [V, token] with a numeric token, got ${showValue(v)}`;
    }
    return `model fenced-register has no operation '${input.f}' (it knows read, write)`;
  },
  step(state, input, output) {
    if (input.f === 'read') return readRejection(output, state.value, 'the store') ?? state;
    const [value, token] = write(input);
    const stale = state.token !== null && token < state.token;
    if (!stale) return { value: value ?? null, token };
    if (!output.known) return state; // the store rejected it; nobody heard
    return reject(staleWrite, value, token, state.token);
  },
  pure: (input) => input.f === 'read',
  key: (state) => `${state.token}|${valueKey(state.value)}`,
  describe: (state) =>
    state.token === null
      ? `the store holds ${showValue(state.value)} (no token accepted yet)`
      : `the store holds ${showValue(state.value)}, largest token ${state.token}`,
  describeOp(input, output) {
    if (input.f === 'read') return describeRead(output);
    const [value, token] = write(input);
    return `write ${showValue(value)} with token ${token}`;
  },
  reduce(ops, initial) {
    const ids = new ValueIds();
    return reduceByObservation(ops, ids.id(initial.value), rolesWith(ids));
  },
  impossible(ops, initial) {
    const ids = new ValueIds();
    const observation = impossibleObservation(ops, ids.id(initial.value), rolesWith(ids));
    const token = staleTokenAccepted(ops);
    if (!observation) return token;
    if (!token) return observation;
    return ops[token.op].ret < ops[observation.op].ret ? token : observation;
  },
};

function tokenOf(t: unknown): number | undefined {
  if (typeof t === 'number' && Number.isFinite(t)) return t;
  if (typeof t === 'string' && /^-?\d+$/.test(t)) return Number(t);
  return undefined;
}

function write(input: OpInput): [unknown, number] {
  const [value, token] = input.value as [unknown, unknown];
  return [value, tokenOf(token) as number];
}

/**
 * An ok write whose token is older than one an ok write had accepted before it was even
 * invoked: a stale token accepted, for certain, in any order. The earliest-completing such
 * write, if any.
 */
function staleTokenAccepted(ops: readonly PartOp[]): { op: number; reason: string } | undefined {
  const accepted = ops
    .map((_, i) => i)
    .filter((i) => ops[i].output.known && ops[i].input.f === 'write')
    .sort((a, b) => ops[a].ret - ops[b].ret);
  // running maximum of accepted tokens by completion
  const maxToken: number[] = [];
  const maxWho: number[] = [];
  for (const i of accepted) {
    const t = write(ops[i].input)[1];
    const k = maxToken.length;
    if (k === 0 || t > maxToken[k - 1]) {
      maxToken.push(t);
      maxWho.push(i);
    } else {
      maxToken.push(maxToken[k - 1]);
      maxWho.push(maxWho[k - 1]);
    }
  }
  let found: { op: number; reason: string } | undefined;
  for (const i of accepted) {
    const op = ops[i];
    if (found && ops[found.op].ret <= op.ret) continue;
    // the ok writes completed before this one was invoked: a prefix of `accepted`
    let lo = 0;
    let hi = accepted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ops[accepted[mid]].ret < op.call) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) continue;
    const [value, token] = write(op.input);
    if (maxToken[lo - 1] <= token) continue;
    const by = ops[maxWho[lo - 1]];
    found = {
      op: i,
      reason: `write of ${showValue(value)} with token ${token} was accepted, but op ${by.input.index} had its token ${maxToken[lo - 1]} accepted before op ${op.input.index} was even invoked`,
    };
  }
  return found;
}

const staleWrite = (value: unknown, token: number, accepted: number | null) =>
  `write of ${showValue(value)} with token ${token} was accepted, but token ${accepted} had already been accepted`;
