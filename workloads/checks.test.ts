/**
 * checkRun pairs the history once and checks the lock's and the store's linearizability from
 * that pairing: the answers must be those of the two checks on the filtered histories, each
 * paired again, as before. Random lock-set histories, some breaking Jepsen's rules.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLinearizable } from '../checkers/linearizable/check-linearizable.js';
import type { CheckResult } from '../checkers/result.js';
import type { Op, OpType } from '../src/history/op.js';
import { errorMessage } from '../src/util/errors.js';
import { checkRun } from './checks.js';

const LOCK = 'L';
const STORE = 'S';

/** One step: a process number, what it does, and how a completion ends. */
const stepArb = fc.record({
  process: fc.nat(3),
  op: fc.nat(3),
  value: fc.array(fc.nat(4), { maxLength: 3 }),
  end: fc.constantFrom<OpType>('ok', 'ok', 'ok', 'fail', 'info'),
  /** Rarely: a break of the history's rules (an invocation while one is open, a completion on the other key). */
  broken: fc.nat(40),
});
type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;

function lockSetHistory(steps: Step[]): Op[] {
  const ops: Op[] = [];
  const open = new Map<number, { f: string; key: string }>();
  const fresh = new Map<number, number>(); // a client's current process number
  let next = 100;
  const add = (type: OpType, process: number | 'nemesis', f: string, key?: string, value?: unknown) => {
    const op: Op = { index: ops.length, type, f, process, time: (ops.length + 1) * 1000 };
    if (key !== undefined) op.key = key;
    if (value !== undefined) op.value = value;
    ops.push(op);
  };
  for (const s of steps) {
    const p = fresh.get(s.process) ?? s.process;
    const pending = open.get(p);
    if (s.broken === 0) add('invoke', p, 'read', STORE);
    if (pending && s.broken !== 1) {
      open.delete(p);
      const key = s.broken === 2 ? (pending.key === LOCK ? STORE : LOCK) : pending.key;
      const value = s.end === 'ok' && pending.f === 'read' ? (s.value.length ? s.value : null) : undefined;
      add(s.end, p, pending.f, key, value);
      if (s.end === 'info') fresh.set(s.process, next++);
      continue;
    }
    if (s.op === 3 && s.broken % 7 === 0) {
      add('invoke', 'nemesis', 'start-client-pause');
      add('ok', 'nemesis', 'start-client-pause');
      continue;
    }
    const [f, key] = (
      [
        ['acquire', LOCK],
        ['release', LOCK],
        ['read', STORE],
        ['write', STORE],
      ] as const
    )[s.op];
    open.set(p, { f, key });
    add('invoke', p, f, key, f === 'write' ? s.value : undefined);
  }
  return ops;
}

/** A result without its times. */
const timeless = (r: CheckResult) =>
  JSON.parse(
    JSON.stringify(r, (k, v) => (k === 'timeMs' || k === 'ms' || /^peak/.test(k) ? undefined : v)),
    (k, v) => (k === 'summary' && typeof v === 'string' ? v.replace(/\(\d+(\.\d+)? ms\)/, '(ms)') : v),
  );

/** The check as checkRun made it before it paired once: on the filtered history, paired again. */
function filteredCheck(history: Op[], keep: (op: Op) => boolean, model: string, only: string[]): CheckResult {
  try {
    return checkLinearizable(
      history.filter((op) => op.process === 'nemesis' || keep(op)),
      model,
      { only, timeLimitMs: 60_000 },
    );
  } catch (err) {
    return { checker: `linearizable(${model})`, valid: 'unknown', summary: `could not check: ${errorMessage(err)}` };
  }
}

describe('checkRun', () => {
  it("runs the workload's checkers, in its order, each counted as it says", () => {
    const history = lockSetHistory([]);
    const names = (workload: string, fencing: boolean) =>
      checkRun(history, { workload, fencing }, { storeKey: STORE }).map(
        (r) => `${r.checker}${r.counts ? '' : ' (shown)'}`,
      );
    expect(names('mutex', false)).toEqual([
      'mutual-exclusion',
      'linearizable(mutex) (shown)',
      'evidence',
      'perf (shown)',
    ]);
    expect(names('lock-set', true)).toEqual([
      'mutual-exclusion (shown)',
      'linearizable(mutex) (shown)',
      'lost-updates',
      // No grant carried a token: nothing for fencing to judge.
      'fencing (shown)',
      'linearizable(fenced-register)',
      'evidence',
      'perf (shown)',
    ]);
    expect(names('lock-set', false)[4]).toBe('linearizable(register)');
    expect(() => checkRun(history, { workload: 'nope', fencing: false }, { storeKey: STORE })).toThrow(
      /unknown workload 'nope'/,
    );
  });

  it('checks the lock and the store from one pairing, with the answers of the filtered histories', () => {
    let broken = 0;
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), fc.boolean(), (steps, fencing) => {
        const history = lockSetHistory(steps);
        const results = checkRun(history, { workload: 'lock-set', fencing }, { storeKey: STORE });
        const model = fencing ? 'fenced-register' : 'register';
        const byName = (name: string) => timeless(results.find((r) => r.checker === name) as CheckResult);
        const mutex = filteredCheck(history, (op) => op.key !== STORE, 'mutex', ['acquire', 'release']);
        const store = filteredCheck(history, (op) => op.key === STORE, model, ['read', 'write']);
        if (mutex.valid === 'unknown' || store.valid === 'unknown') broken++;
        expect(byName('linearizable(mutex)')).toEqual({ ...timeless(mutex), counts: false });
        expect(byName(`linearizable(${model})`)).toEqual({ ...timeless(store), counts: true });
      }),
      { numRuns: 1500, seed: 20261130 },
    );
    // The histories that break the rules took the other way, and were among those checked.
    expect(broken).toBeGreaterThan(20);
  });
});
