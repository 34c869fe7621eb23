/**
 * A read/write register: `write` V sets it, `read` answers its value (the ok completion's
 * value; nil, null or a missing value mean the register holds nil). Values are compared by
 * structure, so a register may hold a JSON array or object. Initially nil, or --initial.
 */
import type { Model, PartOp } from './linearizable-model.js';
import { observedIdByRead, ValueIds } from './value-ids.js';
import {
  describeRead,
  impossibleObservation,
  observationSources,
  readRejection,
  reduceByObservation,
  showValue,
  valueKey,
} from './values.js';

/**
 * Which value each operation writes and reads, as ids of one pass's ValueIds (value-ids.ts):
 * a pass over a large register makes no string per value.
 */
const rolesWith = (ids: ValueIds) => ({
  produces: (op: PartOp) => (op.input.f === 'write' ? ids.id(written(op.input.value, op.output)) : undefined),
  observes: observedIdByRead(ids),
  blind: (op: PartOp) => op.input.f === 'write',
  subject: 'the register',
  shownValue: (op: PartOp) => showValue(op.output.value),
});

/** A pass's roles and the initial value's id, in one id space. */
function rolesFor(initial: unknown): { roles: ReturnType<typeof rolesWith>; initialId: number } {
  const ids = new ValueIds();
  return { initialId: ids.id(initial), roles: rolesWith(ids) };
}

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
  reduce(ops, initial) {
    const { roles, initialId } = rolesFor(initial);
    return reduceByObservation(ops, initialId, roles);
  },
  sources: (ops, initial, sink) => observationSources(ops, rolesFor(initial).roles, sink),
  impossible(ops, initial) {
    const { roles, initialId } = rolesFor(initial);
    return impossibleObservation(ops, initialId, roles);
  },
};

/** The value a write writes: its invocation's, or its completion's when the invocation has none. */
function written(value: unknown, output: { known: boolean; value: unknown }): unknown {
  return value === undefined && output.known ? (output.value ?? null) : (value ?? null);
}
