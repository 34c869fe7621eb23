/**
 * impossibleObservation, indexed, against the plain reading of its definition (each
 * observer against each producer of its value, as it was first written): the same observer
 * and the same words, on random histories of few values (so values have many producers).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PartOp } from './linearizable-model.js';
import { impossibleObservation, impossibleReason, showValue, valueKey } from './values.js';

const roles = {
  produces: (op: PartOp) => (op.input.f === 'write' ? valueKey(op.input.value) : undefined),
  observes: (op: PartOp) => (op.input.f === 'read' && op.output.known ? valueKey(op.output.value) : undefined),
  subject: 'the register',
  shownValue: (op: PartOp) => showValue(op.output.value),
};

/** The definition, read plainly: quadratic in the producers of a value. */
function reference(
  ops: readonly PartOp[],
  initialValueKey: string | number,
): { op: number; reason: string } | undefined {
  /** The ok producer invoked after `after` that completes first, if it completes before `before`. */
  const overwrittenBetween = (after: number, before: number): number => {
    let who = -1;
    for (let w = 0; w < ops.length; w++) {
      const o = ops[w];
      if (!o.output.known || roles.produces(o) === undefined || o.call <= after) continue;
      if (who < 0 || o.ret < ops[who].ret || (o.ret === ops[who].ret && o.call < ops[who].call)) who = w;
    }
    return who >= 0 && ops[who].ret < before ? who : -1;
  };
  let worst: { op: number; reason: string } | undefined;
  ops.forEach((op, i) => {
    const v = roles.observes(op);
    if (v === undefined) return;
    if (worst && ops[worst.op].ret <= op.ret) return;
    const reasons: string[] = [];
    if (v === initialValueKey) {
      const w = overwrittenBetween(Number.NEGATIVE_INFINITY, op.call);
      if (w < 0) return;
      reasons.push(
        `it was the initial value, but op ${ops[w].input.index} overwrote it before op ${op.input.index} was invoked`,
      );
    }
    for (let p = 0; p < ops.length; p++) {
      const producer = ops[p];
      if (p === i || roles.produces(producer) !== v) continue;
      if (producer.call > op.ret) {
        reasons.push(`op ${producer.input.index} writes it, but only after op ${op.input.index} completed`);
        continue;
      }
      const w = Number.isFinite(producer.ret) ? overwrittenBetween(producer.ret, op.call) : -1;
      if (w < 0) return;
      reasons.push(
        `op ${producer.input.index} wrote it, but op ${ops[w].input.index} overwrote it after that and before op ${op.input.index} was invoked`,
      );
    }
    worst = { op: i, reason: impossibleReason(roles.subject, roles.shownValue(op), reasons) };
  });
  return worst;
}

const opArb = fc.record({
  write: fc.boolean(),
  value: fc.nat(3),
  known: fc.nat(9),
  start: fc.nat(20),
  length: fc.nat(6),
});

describe('impossibleObservation', () => {
  it('finds the same impossible observer, with the same words, as the plain definition', () => {
    let found = 0;
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 40 }), fc.constantFrom<unknown>(null, 0), (specs, initial) => {
        // Distinct history positions: calls even, completions odd, in any overlap.
        const ops: PartOp[] = specs.map((s, i) => {
          const call = s.start * 100 + 2 * i;
          const known = !s.write || s.known > 0;
          return {
            input: { f: s.write ? 'write' : 'read', process: i, value: s.write ? s.value : undefined, index: i },
            output: { known, value: s.write ? s.value : s.value === 3 ? null : s.value },
            call,
            ret: known ? call + 1 + s.length * 100 : Number.POSITIVE_INFINITY,
          };
        });
        const expected = reference(ops, valueKey(initial));
        if (expected) found++;
        expect(impossibleObservation(ops, valueKey(initial), roles)).toEqual(expected);
      }),
      { numRuns: 5000, seed: 20261130 },
    );
    // Both answers are common.
    expect(found).toBeGreaterThan(500);
    expect(found).toBeLessThan(4500);
  });
});
