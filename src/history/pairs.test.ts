import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { buildHistory, historyArb } from '../../test/unit/linearizable-support.js';
import { HistoryError } from './errors.js';
import { pairLeniently, pairOperations } from './pairs.js';

const summary = (ops: readonly { invoke: { index: number }; completion?: { index: number }; outcome: string }[]) =>
  ops.map((o) => [o.invoke.index, o.completion?.index, o.outcome]);

describe('pairing operations', () => {
  const h = new H()
    .invoke('nemesis', 'start-client-pause')
    .invoke(0, 'acquire', 'L')
    .fail(0, 'acquire', 'L')
    .invoke(1, 'read', 'K')
    .info(1, 'read', 'K')
    .invoke(0, 'write', 'K', [1])
    .ok(0, 'write', 'K', [1])
    .invoke(2, 'read', 'K');

  it('strictly: removes failed operations, keeps info and pending ones without a return', () => {
    const p = pairOperations(h.ops);
    expect(summary(p.ops)).toEqual([
      [3, 4, 'info'],
      [5, 6, 'ok'],
      [7, undefined, 'pending'],
    ]);
    expect(p.ops.map((o) => o.ret)).toEqual([Number.POSITIVE_INFINITY, 6, Number.POSITIVE_INFINITY]);
    expect([p.failed, p.nemesis, p.strayInfo]).toEqual([1, 1, 0]);
  });

  it('leniently: the same pairs, with the failed operation kept', () => {
    expect(summary(pairLeniently(h.ops))).toEqual([
      [1, 2, 'fail'],
      [3, 4, 'info'],
      [5, 6, 'ok'],
      [7, undefined, 'pending'],
    ]);
  });

  it.each([
    [
      'a second invocation while one is open',
      new H().invoke(0, 'read').invoke(0, 'write'),
      [
        [0, undefined, 'pending'],
        [1, undefined, 'pending'],
      ],
    ],
    [
      'an invocation after an info',
      new H().invoke(0, 'read').info(0, 'read').invoke(0, 'read').ok(0, 'read'),
      [
        [0, 1, 'info'],
        [2, 3, 'ok'],
      ],
    ],
    ['a completion with no invocation', new H().ok(0, 'read').invoke(0, 'read').ok(0, 'read'), [[1, 2, 'ok']]],
    ['a completion of another function', new H().invoke(0, 'read').ok(0, 'write'), [[0, 1, 'ok']]],
  ])('strictly refuses %s, with the op index; leniently reads on', (_, history, lenient) => {
    expect(() => pairOperations(history.ops)).toThrow(HistoryError);
    expect(() => pairOperations(history.ops)).toThrow(/^op \d+: /);
    expect(summary(pairLeniently(history.ops))).toEqual(lenient);
  });

  it('agrees with the strict pairing on every well-formed history, but for the failed operations', () => {
    fc.assert(
      fc.property(historyArb, ({ actions, processes, drain }) => {
        const history = buildHistory('register', actions, processes, drain);
        const strict = pairOperations(history).ops;
        const lenient = pairLeniently(history);
        expect(lenient.filter((o) => o.outcome !== 'fail')).toEqual(strict);
        expect(lenient.filter((o) => o.outcome === 'fail')).toHaveLength(pairOperations(history).failed);
      }),
      { numRuns: 2000 },
    );
  });
});
