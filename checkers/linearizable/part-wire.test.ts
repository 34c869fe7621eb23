/** A part sent to a worker thread (its columns, as a message copies them) is built there as the same part as here. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Op } from '../../src/history/op.js';
import { buildHistory, historyArb } from '../../test/unit/linearizable-support.js';
import { MODEL_NAMES } from '../models/index.js';
import { prepare } from './check-linearizable.js';
import { decodePart } from './part-wire.js';

describe('a part copied to a worker (structured clone of its columns)', () => {
  for (const name of MODEL_NAMES) {
    it(`${name}: every part of random histories, exactly`, () => {
      fc.assert(
        fc.property(historyArb, ({ actions, processes, drain }) => {
          const history = buildHistory(name, actions, processes, drain);
          for (const part of prepare(history, name, {}, false).parts) {
            expect(decodePart(structuredClone(part.columns))).toStrictEqual(part.data());
          }
        }),
        { numRuns: 300, seed: 20261130 },
      );
    });
  }

  it('keeps values JSON would change: Infinity and NaN (EDN ##Inf, ##NaN), undefined inside a value', () => {
    const values: unknown[] = [Number.POSITIVE_INFINITY, Number.NaN, [1, undefined], -0];
    const history: Op[] = values.flatMap((value, i) => [
      { index: 2 * i, type: 'invoke', f: 'write', process: i, time: 0, value },
      { index: 2 * i + 1, type: 'ok', f: 'write', process: i, time: 0, value },
    ]);
    const [part] = prepare(history, 'register', {}, false).parts;
    const copied = decodePart(structuredClone(part.columns));
    expect(copied).toStrictEqual(part.data());
    expect(copied.ops.map((op) => op.input.value)).toStrictEqual(values);
  });

  it('keeps every process and position as it was, the ones that are not 32-bit integers too', () => {
    const processes = [0, -0, 7, 2 ** 31, 2 ** 40, -3, 1.5];
    const history: Op[] = processes.flatMap((process, i) => [
      { index: 2 * i, type: 'invoke', f: 'write', process, time: 0, value: i },
      { index: 2 * i + 1, type: 'ok', f: 'write', process, time: 0, value: i },
    ]);
    const [part] = prepare(history, 'register', {}, false).parts;
    const built = decodePart(structuredClone(part.columns));
    expect(built.ops.map((op) => op.input.process)).toStrictEqual(processes);
    expect(built.ops.map((op) => [op.input.index, op.call, op.ret])).toStrictEqual(
      processes.map((_, i) => [2 * i, 2 * i, 2 * i + 1]),
    );
    expect(built.completions).toStrictEqual(processes.map((_, i) => 2 * i + 1));
  });

  it('keeps an output that equals its input only by ===: a write of 0 answered -0', () => {
    const history: Op[] = [
      { index: 0, type: 'invoke', f: 'write', process: 0, time: 0, value: 0 },
      { index: 1, type: 'ok', f: 'write', process: 0, time: 0, value: -0 },
    ];
    const [part] = prepare(history, 'register', {}, false).parts;
    const [op] = decodePart(structuredClone(part.columns)).ops;
    expect(Object.is(op.input.value, 0) && Object.is(op.output.value, -0)).toBe(true);
  });
});
