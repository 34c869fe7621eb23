/**
 * Hand-written histories per model, the classics included, with the verdict a reviewer
 * would give, and what the checker says about the invalid ones.
 */
import { describe, expect, it } from 'vitest';
import { simulateKv, simulateRegister } from '../../perf/simulate.js';
import { HistoryError } from '../../src/history/errors.js';
import type { Op, OpType, Process } from '../../src/history/op.js';
import { searchOnlyViolation, simulateHistory } from '../../test/unit/linearizable-support.js';
import { guessModel } from '../models/index.js';
import { kv } from '../models/kv.js';
import type { AnyModel } from '../models/linearizable-model.js';
import { register } from '../models/register.js';
import { checkLinearizable } from './check-linearizable.js';
import { useStepClock, useWallClock } from './search-clock.js';

/** A history, written as [process, type, f, value?, key?] rows. */
function h(...rows: [Process, OpType, string, unknown?, string?][]): Op[] {
  return rows.map(([process, type, f, value, key], index) => {
    const op: Op = { index, type, f, process, time: index * 1000 };
    if (value !== undefined) op.value = value;
    if (key !== undefined) op.key = key;
    return op;
  });
}

const check = (history: Op[], model: string, initial?: unknown) => checkLinearizable(history, model, { initial });

describe('register', () => {
  it('reads of nil: initially, and not after a write', () => {
    expect(check(h([0, 'invoke', 'read'], [0, 'ok', 'read', null]), 'register').valid).toBe(true);
    expect(check(h([0, 'invoke', 'read'], [0, 'ok', 'read']), 'register').valid).toBe(true);
    const after = h([0, 'invoke', 'write', 1], [0, 'ok', 'write', 1], [1, 'invoke', 'read'], [1, 'ok', 'read', null]);
    expect(check(after, 'register').valid).toBe(false);
  });

  it('a read of a value no write explains', () => {
    const r = check(
      h([0, 'invoke', 'write', 1], [0, 'ok', 'write', 1], [1, 'invoke', 'read'], [1, 'ok', 'read', 2]),
      'register',
    );
    expect(r.valid).toBe(false);
    expect(r.counterexample?.op).toMatchObject({ index: 2, process: 1, f: 'read', result: 2, completionIndex: 3 });
    expect(r.summary).toContain('no operation writes 2');
  });

  it('a stale read: the value was overwritten before the read began', () => {
    const r = check(
      h(
        [0, 'invoke', 'write', 1],
        [0, 'ok', 'write', 1],
        [0, 'invoke', 'write', 2],
        [0, 'ok', 'write', 2],
        [1, 'invoke', 'read'],
        [1, 'ok', 'read', 1],
      ),
      'register',
    );
    expect(r.valid).toBe(false);
    expect(r.counterexample?.reason).toContain('op 0 wrote it, but op 2 overwrote it');
  });

  it('a stale read that only the search finds, with the configurations it reached', () => {
    // The read of 1 overlaps the write of 2, so no pre-check sees it; but it also comes after
    // a read of 2 completed, so 1 is gone for good.
    const history = h(
      [0, 'invoke', 'write', 1],
      [0, 'ok', 'write', 1],
      [0, 'invoke', 'write', 2],
      [1, 'invoke', 'read'],
      [1, 'ok', 'read', 2],
      [2, 'invoke', 'read'],
      [2, 'ok', 'read', 1],
      [0, 'ok', 'write', 2],
    );
    const r = check(history, 'register');
    expect(r.valid).toBe(false);
    const c = r.counterexample;
    expect(c?.op).toMatchObject({ index: 5, f: 'read', result: 1 });
    expect(c?.prefixEnd).toBe(6);
    expect(c?.configurations.length).toBeGreaterThan(0);
    expect(c?.configurations[0]).toMatchObject({
      state: 'the register holds 2',
      reason: 'read 1, but the register holds 2',
    });
    expect(c?.configurations[0].lastLinearized.map((o) => o.index)).toEqual([0, 2, 3]);
    expect(c?.describe).toMatch(/op 5 \(process 2: read → 1, completed at op \d+\)/);
    expect(c?.involved.map((o) => o.index)).toEqual([0, 2, 3, 5]);
  });

  it('concurrent write and read: either value', () => {
    for (const seen of [null, 1]) {
      const history = h(
        [0, 'invoke', 'write', 1],
        [1, 'invoke', 'read'],
        [1, 'ok', 'read', seen],
        [0, 'ok', 'write', 1],
      );
      expect(check(history, 'register').valid).toBe(true);
    }
  });

  it('an info write may or may not take effect, any time after its invocation', () => {
    const base: [Process, OpType, string, unknown?][] = [
      [0, 'invoke', 'write', 1],
      [0, 'ok', 'write', 1],
      [1, 'invoke', 'write', 2],
      [1, 'info', 'write', 2],
    ];
    const read = (v: unknown): [Process, OpType, string, unknown?][] => [
      [2, 'invoke', 'read'],
      [2, 'ok', 'read', v],
    ];
    expect(check(h(...base, ...read(2)), 'register').valid).toBe(true);
    expect(check(h(...base, ...read(1)), 'register').valid).toBe(true);
    // It took effect late: 1, then 2, then... not 1 again.
    expect(check(h(...base, ...read(1), ...read(2)), 'register').valid).toBe(true);
    expect(check(h(...base, ...read(2), ...read(1)), 'register').valid).toBe(false);
    // Never completing is the same as info.
    const pending = h(
      [0, 'invoke', 'write', 1],
      [0, 'ok', 'write', 1],
      [1, 'invoke', 'write', 2],
      [2, 'invoke', 'read'],
      [2, 'ok', 'read', 2],
    );
    expect(check(pending, 'register').valid).toBe(true);
  });

  it('an info write that was read must have taken effect before the read returned', () => {
    const history = h(
      [1, 'invoke', 'write', 2],
      [1, 'info', 'write', 2],
      [0, 'invoke', 'write', 1],
      [0, 'ok', 'write', 1],
      [2, 'invoke', 'read'],
      [2, 'ok', 'read', 2],
      [2, 'invoke', 'read'],
      [2, 'ok', 'read', 1],
    );
    expect(check(history, 'register').valid).toBe(false);
  });

  it('fail writes are removed', () => {
    const history = h([0, 'invoke', 'write', 1], [0, 'fail', 'write', 1], [1, 'invoke', 'read'], [1, 'ok', 'read', 1]);
    expect(check(history, 'register').valid).toBe(false);
    const unseen = h(
      [0, 'invoke', 'write', 1],
      [0, 'fail', 'write', 1],
      [1, 'invoke', 'read'],
      [1, 'ok', 'read', null],
    );
    expect(check(unseen, 'register').valid).toBe(true);
  });

  it('values compare by structure: arrays and objects', () => {
    const history = (read: unknown) =>
      h(
        [0, 'invoke', 'write', [1, 2, { a: 1, b: [3] }]],
        [0, 'ok', 'write', [1, 2, { a: 1, b: [3] }]],
        [1, 'invoke', 'read'],
        [1, 'ok', 'read', read],
      );
    expect(check(history([1, 2, { b: [3], a: 1 }]), 'register').valid).toBe(true);
    expect(check(history([2, 1, { a: 1, b: [3] }]), 'register').valid).toBe(false);
    expect(check(history('[1,2,{"a":1,"b":[3]}]'), 'register').valid).toBe(false);
  });

  it('--initial sets the initial value', () => {
    const history = h([0, 'invoke', 'read'], [0, 'ok', 'read', [5]]);
    expect(check(history, 'register').valid).toBe(false);
    expect(check(history, 'register', [5]).valid).toBe(true);
  });

  it('nemesis operations and stray infos are ignored', () => {
    const history = h(
      ['nemesis', 'info', 'start', 'partition'],
      [0, 'invoke', 'write', 1],
      ['nemesis', 'info', 'stop'],
      [7, 'info', 'read'],
      [0, 'ok', 'write', 1],
      [1, 'invoke', 'read'],
      [1, 'ok', 'read', 1],
    );
    const r = check(history, 'register');
    expect(r.valid).toBe(true);
    expect(r.stats).toMatchObject({ operations: 2, nemesis: 2 });
  });

  it('splits by key: each key is its own register', () => {
    const history = h(
      [0, 'invoke', 'write', 1, 'a'],
      [0, 'ok', 'write', 1, 'a'],
      [1, 'invoke', 'write', 2, 'b'],
      [1, 'ok', 'write', 2, 'b'],
      [2, 'invoke', 'read', undefined, 'a'],
      [2, 'ok', 'read', 1, 'a'],
      [2, 'invoke', 'read', undefined, 'b'],
      [2, 'ok', 'read', 1, 'b'],
    );
    const r = check(history, 'register');
    expect(r.valid).toBe(false);
    expect(r.stats.parts).toBe(2);
    expect(r.counterexample?.key).toBe('b');
    expect(r.summary).toContain('on key "b"');
  });
});

describe('mutex', () => {
  const cycle = (p: number): [Process, OpType, string][] => [
    [p, 'invoke', 'acquire'],
    [p, 'ok', 'acquire'],
    [p, 'invoke', 'release'],
    [p, 'ok', 'release'],
  ];

  it('acquire, release, acquire by another', () => {
    expect(check(h(...cycle(0), ...cycle(1), ...cycle(0)), 'mutex').valid).toBe(true);
  });

  it('two acquires with no release between', () => {
    const r = check(
      h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], [1, 'invoke', 'acquire'], [1, 'ok', 'acquire']),
      'mutex',
    );
    expect(r.valid).toBe(false);
    expect(r.counterexample?.op).toMatchObject({ index: 2, process: 1, f: 'acquire' });
    expect(r.counterexample?.configurations[0]).toMatchObject({
      state: 'the lock is held by process 0',
      reason: 'acquire by process 1, but the lock is held by process 0',
    });
  });

  it('a release by a process that does not hold the lock', () => {
    const r = check(
      h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], [1, 'invoke', 'release'], [1, 'ok', 'release']),
      'mutex',
    );
    expect(r.valid).toBe(false);
    expect(r.counterexample?.reason).toBe('release by process 1, but the lock is held by process 0');
  });

  it('concurrent acquires: one wins, the other fails', () => {
    const history = h([0, 'invoke', 'acquire'], [1, 'invoke', 'acquire'], [1, 'fail', 'acquire'], [0, 'ok', 'acquire']);
    expect(check(history, 'mutex').valid).toBe(true);
  });

  it('an info acquire need not have happened; an info release may have', () => {
    const crashedAcquire = h([0, 'invoke', 'acquire'], [0, 'info', 'acquire'], ...cycle(1));
    expect(check(crashedAcquire, 'mutex').valid).toBe(true);
    const crashedRelease = h(
      [0, 'invoke', 'acquire'],
      [0, 'ok', 'acquire'],
      [0, 'invoke', 'release'],
      [0, 'info', 'release'],
      ...cycle(1),
    );
    expect(check(crashedRelease, 'mutex').valid).toBe(true);
    const neverReleased = h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], ...cycle(1));
    expect(check(neverReleased, 'mutex').valid).toBe(false);
  });

  it('an acquire overlapping the holder’s release may follow it', () => {
    const history = h(
      [0, 'invoke', 'acquire'],
      [0, 'ok', 'acquire'],
      [0, 'invoke', 'release'],
      [1, 'invoke', 'acquire'],
      [1, 'ok', 'acquire'],
      [0, 'ok', 'release'],
    );
    expect(check(history, 'mutex').valid).toBe(true);
  });
});

describe('mutex-anon', () => {
  it('a release by any process', () => {
    const history = h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], [1, 'invoke', 'release'], [1, 'ok', 'release']);
    expect(check(history, 'mutex-anon').valid).toBe(true);
  });

  it('two acquires with no release between', () => {
    expect(
      check(
        h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], [1, 'invoke', 'acquire'], [1, 'ok', 'acquire']),
        'mutex-anon',
      ).valid,
    ).toBe(false);
  });

  it('a release of a free lock needs an info acquire to have happened', () => {
    const free = h([1, 'invoke', 'release'], [1, 'ok', 'release']);
    expect(check(free, 'mutex-anon').valid).toBe(false);
    expect(
      check(
        h([0, 'invoke', 'acquire'], [0, 'info', 'acquire'], [1, 'invoke', 'release'], [1, 'ok', 'release']),
        'mutex-anon',
      ).valid,
    ).toBe(true);
  });
});

describe('cas-register', () => {
  it('cas from the current value, and from a stale one', () => {
    const base: [Process, OpType, string, unknown?][] = [
      [0, 'invoke', 'write', 1],
      [0, 'ok', 'write', 1],
    ];
    expect(
      check(
        h(...base, [1, 'invoke', 'cas', [1, 2]], [1, 'ok', 'cas', [1, 2]], [2, 'invoke', 'read'], [2, 'ok', 'read', 2]),
        'cas-register',
      ).valid,
    ).toBe(true);
    const stale = check(h(...base, [1, 'invoke', 'cas', [0, 2]], [1, 'ok', 'cas', [0, 2]]), 'cas-register');
    expect(stale.valid).toBe(false);
    expect(stale.counterexample?.op).toMatchObject({ f: 'cas' });
    // A cas that did not match completes as fail and is removed.
    expect(
      check(
        h(
          ...base,
          [1, 'invoke', 'cas', [0, 2]],
          [1, 'fail', 'cas', [0, 2]],
          [2, 'invoke', 'read'],
          [2, 'ok', 'read', 1],
        ),
        'cas-register',
      ).valid,
    ).toBe(true);
  });

  it('an info cas may have taken effect', () => {
    const history = h(
      [0, 'invoke', 'write', 1],
      [0, 'ok', 'write', 1],
      [1, 'invoke', 'cas', [1, 3]],
      [1, 'info', 'cas', [1, 3]],
      [2, 'invoke', 'read'],
      [2, 'ok', 'read', 3],
    );
    expect(check(history, 'cas-register').valid).toBe(true);
  });

  it('rejects a cas without [old, new]', () => {
    expect(() => check(h([0, 'invoke', 'cas', 3], [0, 'ok', 'cas', 3]), 'cas-register')).toThrow(
      /op 0: cas needs the value \[old, new\]/,
    );
  });
});

describe('fenced-register', () => {
  const write = (p: number, v: unknown, token: number, type: OpType = 'ok'): [Process, OpType, string, unknown?][] => [
    [p, 'invoke', 'write', [v, token]],
    [p, type, 'write', [v, token]],
  ];
  const read = (p: number, v: unknown): [Process, OpType, string, unknown?][] => [
    [p, 'invoke', 'read'],
    [p, 'ok', 'read', v],
  ];

  it('growing tokens, and an equal token, are accepted', () => {
    expect(
      check(h(...write(0, 'a', 1), ...write(1, 'b', 2), ...write(2, 'c', 2), ...read(0, 'c')), 'fenced-register').valid,
    ).toBe(true);
  });

  it('a write with an older token that was accepted', () => {
    const r = check(h(...write(0, 'a', 5), ...write(1, 'b', 3)), 'fenced-register');
    expect(r.valid).toBe(false);
    expect(r.counterexample?.op).toMatchObject({ index: 2, process: 1 });
    expect(r.summary).toContain('token 3 was accepted');
  });

  it('an older token accepted while the newer write was still in flight is fine: it went first', () => {
    const history = h(
      [0, 'invoke', 'write', ['a', 5]],
      ...write(1, 'b', 3),
      [0, 'ok', 'write', ['a', 5]],
      ...read(2, 'a'),
    );
    expect(check(history, 'fenced-register').valid).toBe(true);
    // ...but then it cannot be what a later read sees.
    const seen = h(
      [0, 'invoke', 'write', ['a', 5]],
      ...write(1, 'b', 3),
      [0, 'ok', 'write', ['a', 5]],
      ...read(2, 'b'),
    );
    expect(check(seen, 'fenced-register').valid).toBe(false);
  });

  it('a rejected write is a fail, and removed', () => {
    expect(check(h(...write(0, 'a', 5), ...write(1, 'b', 3, 'fail'), ...read(2, 'a')), 'fenced-register').valid).toBe(
      true,
    );
  });

  it('an info write applies only if its token is not stale', () => {
    // Token 7 is fresh: it may have applied, or not.
    expect(check(h(...write(0, 'a', 5), ...write(1, 'b', 7, 'info'), ...read(2, 'b')), 'fenced-register').valid).toBe(
      true,
    );
    expect(check(h(...write(0, 'a', 5), ...write(1, 'b', 7, 'info'), ...read(2, 'a')), 'fenced-register').valid).toBe(
      true,
    );
    // Token 3 is stale: the store rejected it, so nobody can read b.
    expect(check(h(...write(0, 'a', 5), ...write(1, 'b', 3, 'info'), ...read(2, 'b')), 'fenced-register').valid).toBe(
      false,
    );
    // Had the info write with token 7 applied, the ok write with token 6 would be stale.
    expect(check(h(...write(1, 'b', 7, 'info'), ...write(0, 'a', 6), ...read(2, 'a')), 'fenced-register').valid).toBe(
      true,
    );
    expect(check(h(...write(1, 'b', 7, 'info'), ...read(2, 'b'), ...write(0, 'a', 6)), 'fenced-register').valid).toBe(
      false,
    );
  });

  it('reads of nil before any write', () => {
    expect(check(h(...read(0, null), ...write(1, 'a', 1), ...read(0, 'a')), 'fenced-register').valid).toBe(true);
    expect(check(h(...write(1, 'a', 1), ...read(0, null)), 'fenced-register').valid).toBe(false);
  });

  it('rejects a write without [value, token]', () => {
    expect(() => check(h([0, 'invoke', 'write', 'a'], [0, 'ok', 'write', 'a']), 'fenced-register')).toThrow(
      HistoryError,
    );
  });
});

describe('kv', () => {
  it('keys are independent; append appends; absent keys read nil', () => {
    const history = h(
      [0, 'invoke', 'put', 'a', 'x'],
      [0, 'ok', 'put', 'a', 'x'],
      [1, 'invoke', 'append', 'b', 'x'],
      [1, 'ok', 'append', 'b', 'x'],
      [2, 'invoke', 'get', undefined, 'x'],
      [2, 'ok', 'get', 'ab', 'x'],
      [2, 'invoke', 'get', undefined, 'y'],
      [2, 'ok', 'get', null, 'y'],
    );
    const r = check(history, 'kv');
    expect(r.valid).toBe(true);
    expect(r.stats.parts).toBe(2);
    const wrongOrder = h(
      [0, 'invoke', 'put', 'a', 'x'],
      [0, 'ok', 'put', 'a', 'x'],
      [1, 'invoke', 'append', 'b', 'x'],
      [1, 'ok', 'append', 'b', 'x'],
      [2, 'invoke', 'get', undefined, 'x'],
      [2, 'ok', 'get', 'ba', 'x'],
    );
    expect(check(wrongOrder, 'kv').valid).toBe(false);
  });

  it("Jepsen's [k v] tuples when ops have no key", () => {
    const history = h(
      [0, 'invoke', 'put', ['k', 'a']],
      [0, 'ok', 'put', ['k', 'a']],
      [1, 'invoke', 'get', ['k', null]],
      [1, 'ok', 'get', ['k', 'a']],
      [1, 'invoke', 'get', ['j', null]],
      [1, 'ok', 'get', ['j', 'a']],
    );
    const r = check(history, 'kv');
    expect(r.valid).toBe(false);
    expect(r.counterexample?.key).toBe('j');
  });

  it('an info append can take effect long after its invocation', () => {
    // The early get of "ax" is explained by the put of "ax"; the append is needed at the
    // end, 40 operations later. (The search must not confuse "append done" with "append
    // still pending" when it meets the same state twice.)
    const rows: [Process, OpType, string, unknown?, string?][] = [
      [0, 'invoke', 'append', 'x', 'k'],
      [1, 'invoke', 'put', 'a', 'k'],
      [1, 'ok', 'put', 'a', 'k'],
      [2, 'invoke', 'put', 'ax', 'k'],
      [3, 'invoke', 'get', undefined, 'k'],
      [3, 'ok', 'get', 'ax', 'k'],
      [2, 'ok', 'put', 'ax', 'k'],
    ];
    for (let i = 0; i < 20; i++)
      rows.push(
        [1, 'invoke', 'put', 'c', 'k'],
        [1, 'ok', 'put', 'c', 'k'],
        [1, 'invoke', 'get', undefined, 'k'],
        [1, 'ok', 'get', 'c', 'k'],
      );
    rows.push(
      [1, 'invoke', 'put', 'b', 'k'],
      [1, 'ok', 'put', 'b', 'k'],
      [1, 'invoke', 'get', undefined, 'k'],
      [1, 'ok', 'get', 'bx', 'k'],
    );
    expect(check(h(...rows), 'kv').valid).toBe(true);
  });

  it('a search that gives up an order once a get can no longer take effect: fewer steps, the same verdicts and counterexamples', () => {
    // The same model without the gets' sources (SourceSink): every order searched to its end.
    const toTheEnd: typeof kv = { ...kv, reduce: (ops, initial) => kv.reduce?.(ops, initial) ?? [] };
    let invalid = 0;
    let againSearched = 0;
    const histories = Array.from({ length: 300 }, (_, i) =>
      i % 2 === 0 ? simulateHistory('kv', i, 4 + (i % 5), 300, i % 4 === 0) : swappedAppends(i),
    );
    for (const history of histories) {
      const a = checkLinearizable(history, kv);
      const b = checkLinearizable(history, toTheEnd);
      expect(a.valid).toBe(b.valid);
      expect(a.counterexample?.describe).toBe(b.counterexample?.describe);
      if (a.valid === false) invalid++;
      if (a.stats.counterexampleIterations > 0) againSearched++;
      expect(b.stats.counterexampleIterations).toBe(0);
    }
    expect(invalid).toBeGreaterThan(100);
    expect(againSearched).toBeGreaterThan(50);
    // Porcupine's kv test (unique texts): a get's sources are one put or none.
    const valid = [1, 2, 3, 4, 5].map((seed) =>
      simulateKv({ clients: 20, operations: 4000, infoRate: 0.01, keys: 2, seed }),
    );
    const steps = validSteps(valid, kv, toTheEnd);
    expect(steps.a).toBeLessThan(steps.b * 0.8);
  });

  it("a register search told its reads' sources once it goes on undecided: fewer steps, the same verdicts and counterexamples", () => {
    const toTheEnd: typeof register = { ...register, sources: undefined };
    let invalid = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const history = simulateHistory('register', seed, 6 + (seed % 6), 400, seed % 2 === 0);
      const a = checkLinearizable(history, register);
      const b = checkLinearizable(history, toTheEnd);
      expect(a.valid).toBe(b.valid);
      expect(a.counterexample?.describe).toBe(b.counterexample?.describe);
      if (a.valid === false) invalid++;
    }
    expect(invalid).toBeGreaterThan(40);
    // An inversion at the end of a 10-client history: found only by a search that backtracks
    // past the step its reads' sources are told; the counterexample searched again, exactly.
    for (const seed of [1, 2, 3]) {
      const history = inversionAtEnd(seed);
      const a = checkLinearizable(history, register);
      const b = checkLinearizable(history, toTheEnd);
      expect([a.valid, b.valid]).toEqual([false, false]);
      expect(a.stats.counterexampleIterations).toBeGreaterThan(0);
      expect(a.stats.iterations).toBeLessThan(b.stats.iterations);
      expect(a.counterexample?.describe).toBe(b.counterexample?.describe);
      expect(a.counterexample?.describe).toContain('that is the shortest prefix that cannot be linearized');
    }
    // 50 clients of unique writes: a search that backtracks.
    const valid = [1, 2, 3].map((seed) => simulateRegister({ clients: 50, operations: 5000, infoRate: 0.01, seed }));
    const steps = validSteps(valid, register, toTheEnd);
    expect(steps.a).toBeLessThan(steps.b * 0.5);
  });

  it('a counterexample with no time left to search again claims only what the search found', () => {
    // Found not linearizable in 14,422 steps, the search again for the counterexample takes
    // 22,262: on a step clock (time is steps), some time limits fall in between.
    const history = swappedAppends(1, 3000, 6, 0.01);
    const seen = new Set<string>();
    try {
      for (let limit = 1; limit <= 20; limit++) {
        useStepClock();
        const r = checkLinearizable(history, kv, { timeLimitMs: limit });
        const words = r.counterexample?.describe ?? '';
        if (r.valid !== false) continue;
        if (words.includes('that is the shortest prefix that cannot be linearized')) seen.add('exhaustive');
        if (words.includes('no order the search followed got past op')) {
          seen.add('as found');
          expect(words).not.toContain('Every order that gets as far as');
        }
      }
    } finally {
      useWallClock();
    }
    expect([...seen].sort()).toEqual(['as found', 'exhaustive']);
  });
});

/** Valid histories checked with two models (one giving up orders, one not): both valid, and each one's steps in all. */
function validSteps(histories: Op[][], a: AnyModel, b: AnyModel): { a: number; b: number } {
  const steps = { a: 0, b: 0 };
  for (const history of histories) {
    const x = checkLinearizable(history, a);
    const y = checkLinearizable(history, b);
    expect([x.valid, y.valid]).toEqual([true, true]);
    steps.a += x.stats.iterations;
    steps.b += y.stats.iterations;
  }
  return steps;
}

/**
 * A 10-client register history, then two concurrent writes and two reads one after the other
 * that see them in both orders: no pre-check can tell which write is certainly the later one.
 */
function inversionAtEnd(seed: number): Op[] {
  const history = simulateRegister({ clients: 10, operations: 2000, infoRate: 0.01, seed });
  let time = Math.max(...history.map((o) => o.time)) + 1;
  const add = (process: number, type: OpType, f: string, value?: string) =>
    history.push({ index: history.length, type, f, process, time: time++, value });
  add(900, 'invoke', 'write', 'a');
  add(901, 'invoke', 'write', 'b');
  add(900, 'ok', 'write', 'a');
  add(901, 'ok', 'write', 'b');
  add(902, 'invoke', 'read');
  add(902, 'ok', 'read', 'b');
  add(903, 'invoke', 'read');
  add(903, 'ok', 'read', 'a');
  return history;
}

/**
 * Porcupine's kv test on one key (unique texts), with one get's last two texts swapped: an
 * order of appends no one saw, which only a search finds (mostly not linearizable).
 */
function swappedAppends(seed: number, operations = 200, clients = 8, infoRate = 0.02): Op[] {
  const history = simulateKv({ clients, operations, infoRate, keys: 1, seed });
  const texts = (o: Op) => (typeof o.value === 'string' ? (o.value.match(/x[^y]*y/g) ?? []) : []);
  const gets = history.filter((o) => o.type === 'ok' && o.f === 'get' && texts(o).length >= 3);
  // A get late in the history when it is long (one early is found in a few steps).
  const get = operations > 1000 ? gets[Math.floor(gets.length * 0.9)] : gets[seed % gets.length];
  const chunks = texts(get);
  const n = chunks.length;
  [chunks[n - 2], chunks[n - 1]] = [chunks[n - 1], chunks[n - 2]];
  get.value = chunks.join('');
  return history;
}

describe('kv: an absent key and "" are one observation', () => {
  /** The same history as Porcupine's kv logs record it: a get of an absent key answers "". */
  const porcupine = (history: Op[]): Op[] =>
    history.map((op) => {
      if (op.f !== 'get' || op.type !== 'ok') return op;
      if (Array.isArray(op.value)) return { ...op, value: [op.value[0], op.value[1] ?? ''] };
      return { ...op, value: op.value ?? '' };
    });

  it('a get of a never-written key: nil (Jepsen) and "" (Porcupine) are both valid', () => {
    const jepsen = h(
      [0, 'invoke', 'get', undefined, 'k'],
      [0, 'ok', 'get', null, 'k'],
      [1, 'invoke', 'append', 'x', 'k'],
      [1, 'ok', 'append', 'x', 'k'],
      [0, 'invoke', 'get', undefined, 'k'],
      [0, 'ok', 'get', 'x', 'k'],
    );
    expect(check(jepsen, 'kv').valid).toBe(true);
    expect(porcupine(jepsen)[1].value).toBe('');
    expect(check(porcupine(jepsen), 'kv').valid).toBe(true);
  });

  it('the counterexample names the real stale read in both conventions', () => {
    const jepsen = h(
      [0, 'invoke', 'put', 'a', 'k'],
      [0, 'ok', 'put', 'a', 'k'],
      [1, 'invoke', 'get', undefined, 'k'],
      [1, 'ok', 'get', 'a', 'k'],
      [2, 'invoke', 'get', undefined, 'k'],
      [2, 'ok', 'get', null, 'k'],
    );
    const a = check(jepsen, 'kv');
    const b = check(porcupine(jepsen), 'kv');
    expect(a.valid).toBe(false);
    expect(a.counterexample?.op.index).toBe(4);
    expect(a.summary).toBe(
      'not linearizable: op 4 (process 2: get → "", completed at op 5) on key "k" cannot take effect: it needs the key to hold "", and no order can make it so: it was the initial value, but op 0 overwrote it before op 4 was invoked',
    );
    expect(b.summary).toBe(a.summary);
    expect(b.counterexample?.describe).toBe(a.counterexample?.describe);
  });

  it('simulated histories, half of them falsified: the same verdict and counterexample either way', () => {
    const verdicts = { true: 0, false: 0 };
    for (let seed = 1; seed <= 200; seed++) {
      const history = simulateHistory('kv', seed, 4, 200, seed % 2 === 0);
      const a = check(history, 'kv');
      const b = check(porcupine(history), 'kv');
      expect(b.valid).toBe(a.valid);
      // Everything but the values as recorded (nil here, "" there).
      const words = (c: typeof a.counterexample) =>
        c && { key: c.key, op: c.op.text, reason: c.reason, prefixEnd: c.prefixEnd, describe: c.describe };
      expect(words(b.counterexample)).toEqual(words(a.counterexample));
      verdicts[String(a.valid) as 'true' | 'false']++;
    }
    expect(verdicts.true).toBeGreaterThan(50);
    expect(verdicts.false).toBeGreaterThan(50);
  });
});

describe('history rules', () => {
  it('a process that issues again after info', () => {
    const history = h([0, 'invoke', 'write', 1], [0, 'info', 'write', 1], [0, 'invoke', 'read'], [0, 'ok', 'read', 1]);
    expect(() => check(history, 'register')).toThrow(
      'op 2: process 0 invokes read after its op 1 (write) ended as info; a process whose operation ended as info must not issue again (the client should take a new process number)',
    );
  });

  it('ok without an invocation, two outstanding invocations, mismatched completion', () => {
    expect(() => check(h([0, 'ok', 'read', 1]), 'register')).toThrow(
      'op 0: ok read on process 0 has no outstanding invocation',
    );
    expect(() => check(h([0, 'fail', 'read']), 'register')).toThrow(
      'op 0: fail read on process 0 has no outstanding invocation',
    );
    expect(() => check(h([0, 'invoke', 'read'], [0, 'invoke', 'read']), 'register')).toThrow(
      /op 1: process 0 invokes read while its op 0 \(read\) is still outstanding/,
    );
    expect(() => check(h([0, 'invoke', 'read'], [0, 'ok', 'write', 1]), 'register')).toThrow(
      /op 1: ok write on process 0 does not match its invocation, op 0 \(read\)/,
    );
  });

  it('an operation the model does not know: --only with those of its operations the history has, or another model', () => {
    expect(() =>
      check(h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], [1, 'invoke', 'read'], [1, 'ok', 'read']), 'register'),
    ).toThrow(
      "op 0: model register has no operation 'acquire' (it knows read, write); to check only the model's operations, give --only read",
    );
    expect(() => check(h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire']), 'register')).toThrow(
      "op 0: model register has no operation 'acquire' (it knows read, write); the history has none of the model's operations (read, write): give another --model",
    );
  });

  it('only: a run history with lock and store operations, checked one model at a time', () => {
    // Process 0 takes the lock, reads and writes the store, releases; process 1 then takes it.
    const history = h(
      [0, 'invoke', 'acquire', undefined, 'L'],
      [0, 'ok', 'acquire', { token: 1 }, 'L'],
      [0, 'invoke', 'read', undefined, 's'],
      [0, 'ok', 'read', null, 's'],
      [0, 'invoke', 'write', [[1], 1], 's'],
      [0, 'info', 'write', [[1], 1], 's'],
      [2, 'invoke', 'acquire', undefined, 'L'],
      [2, 'ok', 'acquire', { token: 2 }, 'L'],
      [2, 'invoke', 'read', undefined, 's'],
      [2, 'ok', 'read', [1], 's'],
    );
    const lock = checkLinearizable(history, 'mutex', { only: ['acquire', 'release'] });
    expect(lock.valid).toBe(false); // process 0 never released, and its crash came after the acquire
    expect(lock.stats).toMatchObject({ operations: 2, ignored: 3 });
    const store = checkLinearizable(history, 'fenced-register', { only: ['read', 'write'] });
    expect(store.valid).toBe(true);
    expect(store.stats).toMatchObject({ operations: 3, ignored: 2 });
  });

  it('an unknown model', () => {
    expect(() => check([], 'queue')).toThrow(
      "unknown model 'queue': choose one of mutex, mutex-anon, register, cas-register, fenced-register, kv",
    );
  });
});

describe('budgets', () => {
  // Fifty clients on one register: hard enough that the budgets bite.
  const hard = simulateHistory('register', 3, 50, 20_000, false);

  it('a time limit turns into unknown, naming the part and how far it got', () => {
    const r = checkLinearizable(hard, 'register', { timeLimitMs: 1 });
    expect(r.valid).toBe('unknown');
    expect(r.unknown?.budget).toBe('time');
    expect(r.unknown?.parts[0]).toMatchObject({ key: null });
    expect(r.unknown?.parts[0].total).toBeGreaterThan(0);
    expect(r.unknown?.parts[0].linearized).toBeLessThan(r.unknown?.parts[0].total as number);
    expect(r.summary).toMatch(
      /^unknown: time limit of 0\.0 s reached in the history \(\d+ of \d+ operations linearized\)$/,
    );
  });

  it('a memory limit turns into unknown', () => {
    const r = checkLinearizable(hard, 'register', { memoryLimitBytes: 1 });
    expect(r.valid).toBe('unknown');
    expect(r.unknown?.budget).toBe('memory');
    expect(r.summary).toContain('memory budget of 0 MiB reached');
  });

  it('one hard part does not starve the others: an invalid small part is found', () => {
    const small = h(
      [0, 'invoke', 'write', 1, 'z'],
      [0, 'ok', 'write', 1, 'z'],
      [0, 'invoke', 'read', undefined, 'z'],
      [0, 'ok', 'read', 2, 'z'],
    ).map((op) => ({ ...op, process: 1000 + (op.process as number) }));
    // the hard part, keyed, and twice the small part's size limit of the first slice
    const history = [...hard.map((op) => ({ ...op, key: 'big' })), ...small].map((op, index) => ({ ...op, index }));
    const r = checkLinearizable(history, 'register', { timeLimitMs: 10_000, sliceIterations: 1000 });
    expect(r.valid).toBe(false);
    expect(r.counterexample?.key).toBe('z');
  });

  it('a hard part first, under a time limit, still leaves a later part its turn: its violation is found', () => {
    // Fifty writers of unique values: no end in sight within the limit.
    const hard = simulateRegister({ clients: 50, operations: 100_000, infoRate: 0.001, seed: 42 });
    // Its plain writes make it the larger part, checked after the hard one, and take the
    // search more steps than a look at the clock allows.
    const late = searchOnlyViolation('z', 2000, hard.length);
    const history = [...hard.map((o) => ({ ...o, key: 'big' })), ...late].map((o, index) => ({ ...o, index }));
    // Rounds of doubling steps (search-rounds.ts): the hard part never runs far ahead of z. On the
    // step clock a "ms" is a look at the clock (one per 4096 steps): a limit of 1000 is 4M
    // steps of search, on a loaded machine as on an idle one. (With a first round of 4M steps,
    // sliceIterations 1 << 22, the hard part would take them all, and z no turn.)
    useStepClock();
    try {
      const r = checkLinearizable(history, 'register', { timeLimitMs: 1000 });
      expect(r.stats.parts).toBe(2);
      expect(r.valid).toBe(false);
      expect(r.counterexample?.key).toBe('z');
      // Found before the limit: z's violation ended the check.
      expect(r.stats.iterations).toBeLessThan(1000 * 4096);
    } finally {
      useWallClock();
    }
  });
});

describe('guessModel', () => {
  it('from the operations', () => {
    expect(guessModel(h([0, 'invoke', 'acquire'])).model.name).toBe('mutex');
    expect(guessModel(h([0, 'invoke', 'append', 'x'])).model.name).toBe('kv');
    expect(guessModel(h([0, 'invoke', 'cas', [1, 2]])).model.name).toBe('cas-register');
    expect(guessModel(h([0, 'invoke', 'write', ['a', 3]])).model.name).toBe('fenced-register');
    expect(guessModel(h([0, 'invoke', 'write', 3], [0, 'invoke', 'write', ['a', 3]])).model.name).toBe('register');
    expect(guessModel(h(['nemesis', 'info', 'start'])).model.name).toBe('register');
    expect(guessModel(h([0, 'invoke', 'read'], [1, 'invoke', 'txn'])).model.name).toBe('register');
  });

  it('operations of no model: an error, not a register that cannot fit', () => {
    expect(() => guessModel(h([0, 'invoke', 'txn'], [1, 'invoke', 'enqueue']))).toThrow(
      /^no model knows the operations enqueue, txn \(mutex: acquire\/release; .*\): check a history of one of these$/,
    );
  });
});

describe('an impossible operation found without searching', () => {
  it('may have an earlier violation before it, unless no operation completed before it', () => {
    const later = checkLinearizable(
      h([0, 'invoke', 'write', 1], [0, 'ok', 'write', 1], [1, 'invoke', 'read'], [1, 'ok', 'read', 7]),
      'register',
    );
    expect(later.counterexample?.describe).toContain('(found without searching; an earlier violation may exist).');
    const first = checkLinearizable(h([1, 'invoke', 'read'], [1, 'ok', 'read', 7]), 'register');
    expect(first.counterexample?.describe).toContain('(found without searching).');
  });
});
