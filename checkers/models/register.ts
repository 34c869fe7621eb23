/**
 * A read/write register: `write` V sets it, `read` answers its value (the ok completion's
 * value; nil, null or a missing value mean the register holds nil). Values are compared by
 * structure, so a register may hold a JSON array or object. Initially nil, or --initial.
 */
import type { Model, PartOp } from './model.js';
import {
  describeRead,
  impossibleObservation,
  observationSources,
  observedByRead,
  readRejection,
  reduceByObservation,
  showValue,
  valueKey,
} from './values.js';

const roles = {
  produces: (op: PartOp) => (op.input.f === 'write' ? valueKey(written(op.input.value, op.output)) : undefined),
  observes: observedByRead,
  blind: (op: PartOp) => op.input.f === 'write',
  subject: 'the register',
  shownValue: (op: PartOp) => showValue(op.output.value),
};

export const register: Model<unknown> = {
  name: 'register',
  description: 'a read/write register: write V, read answers V (nil initially unless --initial)',
  fs: ['read', 'write'],
  init: (initial) => initial ?? null,
  validate(input) {
    if (input.f !== 'read' && input.f !== 'write')
      return `model register has no operation '${input.f}' (it knows read, write)`;
    return undefined;
  },
  step(state, input, output, explain) {
    if (input.f === 'write') return written(input.value, output);
    return readRejection(output, state, 'the register', explain) ?? state;
  },
  blind: (input) => input.f === 'write',
  pure: (input) => input.f === 'read',
  key: valueKey,
  describe: (state) => `the register holds ${showValue(state)}`,
  describeOp: (input, output) =>
    input.f === 'write' ? `write ${showValue(written(input.value, output))}` : describeRead(output),
  reduce: (ops, initial) => reduceByObservation(ops, valueKey(initial), roles),
  sources: (ops, _, sink) => observationSources(ops, roles, sink),
  impossible: (ops, initial) => impossibleObservation(ops, valueKey(initial), roles),
};

/** The value a write writes: its invocation's, or its completion's when the invocation has none. */
function written(value: unknown, output: { known: boolean; value: unknown }): unknown {
  return value === undefined && output.known ? (output.value ?? null) : (value ?? null);
}
