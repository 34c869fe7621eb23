/**
 * The kv model's state space (KvSpace): on any sequence of operations it agrees with the
 * model's own step, on strings (the same operations accepted, values equal to the model's),
 * and gives the same id to the same append to the same value and to a put of the same text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bruteForce, buildHistory, historyArb } from '../../test/unit/linearizable-support.js';
import { buffers } from '../linearizable/buffers.js';
import { checkLinearizable } from '../linearizable/check-linearizable.js';
import { kv } from './kv.js';
import { REJECTED, Rejection, UNREACHABLE } from './linearizable-model.js';

const op = (f: string, index: number, value?: unknown) => ({ f, process: 0, value, index });
const ok = (value?: unknown) => ({ known: true, value });
/** An op of a part, invoked at 2·index and (if ok) completed right after. */
const partOp = (f: string, index: number, value: unknown, output = ok(value)) => ({
  input: op(f, index, f === 'get' ? undefined : value),
  output,
  call: 2 * index,
  ret: output.known ? 2 * index + 1 : Number.POSITIVE_INFINITY,
});

describe('KvSpace', () => {
  it("agrees with the model's step on random operations, from many states", () => {
    const texts = ['', 'a', 'b', 'ab', 'ba', 'aa'];
    const action = fc.record({
      f: fc.constantFrom('put', 'append', 'get', 'get'),
      text: fc.constantFrom(...texts, 'aab', 'abab'),
      known: fc.boolean(),
      from: fc.nat(),
    });
    fc.assert(
      fc.property(fc.constantFrom('', 'a', 'ab'), fc.array(action, { maxLength: 80 }), (initial, actions) => {
        const space = kv.space?.(initial, buffers);
        if (!space) throw new Error('kv has a state space');
        const strings: string[] = [initial];
        const ids = [0];
        actions.forEach((a, index) => {
          // From any state reached so far: the search steps from states in any order.
          const k = a.from % ids.length;
          const input = op(a.f, index, a.f === 'get' ? undefined : a.text);
          const output = a.f === 'get' ? { known: a.known, value: a.known ? a.text : undefined } : ok(a.text);
          const expected = kv.step(strings[k], input, output);
          const got = space.step(ids[k], input, output);
          if (expected instanceof Rejection) {
            // Unreachable exactly when no appends can make the value: it does not begin with the key's.
            expect(got).toBe(a.text.startsWith(strings[k]) ? -1 : UNREACHABLE);
            return;
          }
          expect(got).toBeGreaterThanOrEqual(0);
          expect(space.state(got)).toBe(expected);
          // The same op from the same state again: the same id.
          expect(space.step(ids[k], input, output)).toBe(got);
          strings.push(expected);
          ids.push(got);
        });
        // Ids that differ may be equal values; values that differ never share an id.
        const byId = new Map<number, string>();
        ids.forEach((id, i) => {
          expect(byId.get(id) ?? strings[i]).toBe(strings[i]);
          byId.set(id, strings[i]);
        });
        for (const id of ids) expect(id).toBeLessThan(space.size);
        space.release();
      }),
      { numRuns: 500, seed: 20261201 },
    );
  });

  it('a put of a text gives one id, whichever state it is put from; the initial value is id 0', () => {
    const space = kv.space?.('x', buffers);
    if (!space) throw new Error('kv has a state space');
    const a = space.step(0, op('append', 1, 'y'), ok('y'));
    expect(space.state(a)).toBe('xy');
    expect(space.step(a, op('put', 2, 'q'), ok('q'))).toBe(space.step(0, op('put', 3, 'q'), ok('q')));
    expect(space.step(a, op('put', 4, 'x'), ok('x'))).toBe(0);
    expect(space.step(a, op('get', 5), ok('xy'))).toBe(a);
    expect(space.step(a, op('get', 5), ok('xyz'))).toBe(-1); // an append may yet make it
    expect(space.step(a, op('get', 5), ok('x'))).toBe(UNREACHABLE); // only a put could
    expect(space.step(0, op('get', 6), ok(null))).toBe(UNREACHABLE);
    expect(space.step(0, op('append', 7, ''), ok(''))).toBe(0);
    // Two ops with one index (a file may repeat them): told apart by their text.
    const b = space.step(a, op('append', 8, 'b'), ok('b'));
    const c = space.step(a, op('append', 8, 'c'), ok('c'));
    expect([space.state(b), space.state(c)]).toEqual(['xyb', 'xyc']);
    space.release();
  });
});

describe('kv steps', () => {
  it('rejects the same without reasons, and with them names what the key holds', () => {
    expect(kv.step('x', op('get', 0), ok('y'), false)).toBe(REJECTED);
    const why = kv.step('x', op('get', 0), ok('y'));
    expect(why).toBeInstanceOf(Rejection);
    expect((why as Rejection).reason).toBe('get → "y", but the key holds "x"');
    expect(kv.step('x', op('get', 0), ok('x'), false)).toBe('x');
  });

  it('a get of nil or "" finds an absent key', () => {
    expect(kv.step('', op('get', 0), ok(null))).toBe('');
    expect(kv.step('', op('get', 0), ok(''))).toBe('');
  });
});

describe('kv reduction with appends', () => {
  const reduce = (ops: ReturnType<typeof partOp>[]) => kv.reduce?.(ops, '');

  it('takes a put no get sees the effect of as a write nothing observes, and keeps the rest', () => {
    const ops = [
      partOp('put', 0, 'p1'),
      partOp('put', 1, 'p2'), // no get's value begins with "p2"
      partOp('append', 2, 'a'),
      partOp('get', 3, 'p1a'), // sees p1, and the append after it
      partOp('put', 4, 'p3', { known: false, value: undefined }), // no answer, and no get saw it: never needed
      partOp('get', 5, undefined, { known: false, value: undefined }),
      partOp('put', 6, ''), // every value begins with ""
    ];
    expect(reduce(ops)).toEqual(['keep', 'flush', 'keep', 'keep', 'drop', 'drop', 'keep']);
  });

  it('a get of a longer value built on a shorter put sees that put, whatever other puts share its start', () => {
    const ops = [partOp('put', 0, 'ab'), partOp('put', 1, 'abc'), partOp('append', 2, 'x'), partOp('get', 3, 'abx')];
    expect(reduce(ops)).toEqual(['keep', 'flush', 'keep', 'keep']);
  });

  it("takes an append whose text is in no get's value as unseen, when every value reads as chunks", () => {
    const ops = [partOp('put', 0, 'p'), partOp('append', 1, 'a'), partOp('append', 2, 'b'), partOp('get', 3, 'pb')];
    expect(reduce(ops)).toEqual(['keep', 'flush', 'keep', 'keep']);
  });

  it('takes no append as unseen when a value reads as chunks in two ways', () => {
    // "aaa" is a + aa or aa + a: which appends it saw cannot be told.
    const ops = [
      partOp('append', 0, 'a'),
      partOp('append', 1, 'aa'),
      partOp('append', 2, 'b'),
      partOp('get', 3, 'aaa'),
    ];
    expect(reduce(ops)).toEqual(['keep', 'keep', 'keep', 'keep']);
  });

  it('keeps every put when their texts are of too many lengths to look for', () => {
    const puts = Array.from({ length: 65 }, (_, i) => partOp('put', i, 'p'.repeat(i + 1)));
    const ops = [...puts, partOp('append', 65, 'a'), partOp('get', 66, 'qa')];
    expect(
      reduce(ops)
        ?.slice(0, 65)
        .every((r) => r === 'keep'),
    ).toBe(true);
  });
});

describe('kv pre-check with appends', () => {
  const impossible = (ops: ReturnType<typeof partOp>[], initial = '') => kv.impossible?.(ops, initial);

  it('finds a get built on a put that a later put overwrote before the get began (a stale read)', () => {
    const ops = [partOp('put', 0, 'p'), partOp('put', 1, 'q'), partOp('append', 2, 'a'), partOp('get', 3, 'pa')];
    const found = impossible(ops);
    expect(found?.op).toBe(3);
    expect(found?.reason).toBe(
      'it needs the key to hold "pa", and no order can make it so: it may be appends to the initial value, but op 0 overwrote it before op 3 was invoked; op 0 wrote "p", but op 1 overwrote it after that and before op 3 was invoked',
    );
    // The same get of the later put's value, with the append after it: explained.
    ops[3] = partOp('get', 3, 'qa');
    expect(impossible(ops)).toBeUndefined();
  });

  it('finds a value of appends alone once a put completed before the get began', () => {
    const ops = [partOp('append', 0, 'a'), partOp('put', 1, 'p'), partOp('get', 2, 'a')];
    expect(impossible(ops)?.reason).toContain('it may be appends to the initial value, but op 1 overwrote it');
  });

  it('takes a put that overlaps the overwriting one, or has no answer, as able to explain the get', () => {
    // Put "p" completes only after put "q" began: it may take effect after it.
    const overlapping = [
      { ...partOp('put', 0, 'p'), ret: 5 },
      partOp('put', 1, 'q'), // call 2, ret 3
      partOp('append', 3, 'a'),
      partOp('get', 4, 'pa'),
    ];
    expect(impossible(overlapping)).toBeUndefined();
    const unanswered = [
      partOp('put', 0, 'p', { known: false, value: undefined }),
      partOp('put', 1, 'q'),
      partOp('get', 2, 'p'),
    ];
    expect(impossible(unanswered)).toBeUndefined();
  });

  it('does not pre-check puts of too many lengths', () => {
    const puts = Array.from({ length: 65 }, (_, i) => partOp('put', i, 'p'.repeat(i + 1)));
    const tail = [partOp('put', 65, 'q'), partOp('get', 66, 'p'), partOp('append', 67, 'a')];
    expect(impossible([...puts, ...tail])).toBeUndefined();
    expect(impossible([...puts.slice(0, 60), ...tail])?.op).toBe(61);
  });

  it('finds only histories the brute force finds not linearizable, and finds some', () => {
    let found = 0;
    fc.assert(
      fc.property(historyArb, ({ actions, processes, drain }) => {
        const history = buildHistory('kv', actions, processes, drain);
        const result = checkLinearizable(history, 'kv');
        // No step searched and not linearizable: the pre-check's verdict.
        if (result.valid !== false || result.stats.iterations > 0) return;
        if (!history.some((o) => o.f === 'append')) return;
        found++;
        expect(bruteForce(history, kv)).toBe(false);
      }),
      { numRuns: 3000, seed: 20261203 },
    );
    expect(found).toBeGreaterThan(30);
  });
});
