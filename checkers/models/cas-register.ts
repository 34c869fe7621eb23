/**
 * A compare-and-set register, as Knossos's: `write` V, `read` answers V, `cas` [old, new]
 * sets new iff the register holds old (a cas that did not match completes as fail and is
 * removed). One difference: an ok read of nil means the register holds nil, as in the
 * register model and Porcupine's etcd model. Knossos accepts a read of nil in any state
 * (nil as "not known"), so on a history whose reads of nil meant "not yet written" and an
 * --initial other than nil, this model finds those reads impossible where Knossos does not.
 */
import { type Model, type OpInput, type PartOp, REJECTED, reject } from './linearizable-model.js';
import {
  describeRead,
  impossibleObservation,
  observedByRead,
  readRejection,
  reduceByObservation,
  sameValue,
  showValue,
  valueKey,
} from './values.js';

const roles = {
  produces: (op: PartOp) =>
    op.input.f === 'write'
      ? valueKey(op.input.value)
      : op.input.f === 'cas'
        ? valueKey(casPair(op.input)[1])
        : undefined,
  observes: (op: PartOp) => (op.input.f === 'cas' ? valueKey(casPair(op.input)[0]) : observedByRead(op)),
  blind: (op: PartOp) => op.input.f === 'write',
  subject: 'the register',
  shownValue: (op: PartOp) => showValue(op.input.f === 'cas' ? casPair(op.input)[0] : op.output.value),
};

export const casRegister: Model<unknown> = {
  name: 'cas-register',
  description: 'a compare-and-set register: write V, read answers V, cas [old new] sets new iff it holds old',
  fs: ['read', 'write', 'cas'],
  init: (initial) => initial ?? null,
  validate(input) {
    if (input.f === 'read' || input.f === 'write') return undefined;
    if (input.f === 'cas') {
      return Array.isArray(input.value) && input.value.length === 2
        ? undefined
        : `cas needs the value [old, new], got ${showValue(input.value)}`;
    }
    return `model cas-register has no operation '${input.f}' (it knows read, write, cas)`;
  },
  step(state, input, output, explain) {
    switch (input.f) {
      case 'write':
        return input.value ?? null;
      case 'cas': {
        const [from, to] = input.value as [unknown, unknown];
        if (sameValue(from, state)) return to ?? null;
        return explain === false ? REJECTED : reject(casMismatch, from, to, state);
      }
      default:
        return readRejection(output, state, 'the register', explain) ?? state;
    }
  },
  blind: (input) => input.f === 'write',
  pure: (input) => input.f === 'read',
  key: valueKey,
  describe: (state) => `the register holds ${showValue(state)}`,
  describeOp(input, output) {
    if (input.f === 'write') return `write ${showValue(input.value)}`;
    if (input.f === 'cas') return `cas ${showValue(casPair(input)[0])} → ${showValue(casPair(input)[1])}`;
    return describeRead(output);
  },
  reduce: (ops, initial) => reduceByObservation(ops, valueKey(initial), roles),
  impossible: (ops, initial) => impossibleObservation(ops, valueKey(initial), roles),
};

function casPair(input: OpInput): [unknown, unknown] {
  return input.value as [unknown, unknown];
}

const casMismatch = (from: unknown, to: unknown, state: unknown) =>
  `cas from ${showValue(from)} to ${showValue(to)} succeeded, but the register holds ${showValue(state)}`;
