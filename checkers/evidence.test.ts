import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countedVerdict, exitCodeFor } from '../checkers/result.js';
import type { Op, OpType } from '../src/history/op.js';
import { H } from '../test/unit/history-builder.js';
import { checkRun } from '../workloads/checks.js';
import { checkEvidence, evidenceViolations, outlivedLeases } from './evidence.js';

const S = 'S';
type Run = { workload: string; fencing: boolean };
const config = (over: Partial<Run> = {}): Run => ({ workload: 'lock-set', fencing: false, ...over });
const verdict = (h: H, c: Run) => countedVerdict(checkRun(h.ops, c, { storeKey: S }));

/** n cycles of acquire, read, write (ok or rejected), release; then a final read. */
function lockSet(n: number, { fenced = false, rejectAllBut = Number.POSITIVE_INFINITY } = {}): H {
  const h = new H();
  const set: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = i % 3;
    h.acquire(p, fenced ? i + 1 : undefined);
    h.invoke(p, 'read', S).ok(p, 'read', S, set.length ? [...set] : null);
    const value = fenced ? [[...set, i], i + 1] : [...set, i];
    h.invoke(p, 'write', S, value);
    if (i < rejectAllBut) {
      h.ok(p, 'write', S, value);
      set.push(i);
    } else h.fail(p, 'write', S, value, 'rejected: stale token');
    h.release(p);
  }
  return h.invoke(99, 'read', S).ok(99, 'read', S, set.length ? [...set] : null);
}

describe('evidence', () => {
  it('is valid with grants, accepted writes and reads', () => {
    const r = checkEvidence(lockSet(10).ops, { writes: true, storeKey: S, fencing: false });
    expect(r.valid).toBe(true);
    expect(r.summary).toBe('10 of 10 acquires granted, 10 of 10 writes accepted, 11 reads');
  });

  it('a backend whose every acquire is info: unknown (exit 2), not valid', () => {
    const h = new H();
    for (let p = 0; p < 20; p++) h.invoke(p, 'acquire', 'L').info(p, 'acquire', 'L', undefined, 'boom');
    h.invoke(99, 'read', S).ok(99, 'read', S, null);
    const r = checkEvidence(h.ops, { writes: true, storeKey: S, fencing: false });
    expect(r.valid).toBe('unknown');
    expect(r.summary).toMatch(/too little to judge safety: only 0 of 20 acquires granted \(0 failed, 20 timed out/);
    // The whole run: on c7f3e6e every checker passed vacuously and the run was valid, exit 0.
    expect(exitCodeFor(verdict(h, config()))).toBe(2);
    expect(exitCodeFor(verdict(h, config({ workload: 'mutex' })))).toBe(2);
  });

  it('a fenced store that rejected 447 of 448 writes: unknown, and says so', () => {
    const h = lockSet(448, { fenced: true, rejectAllBut: 1 });
    const r = checkEvidence(h.ops, { writes: true, storeKey: S, fencing: true });
    expect(r.valid).toBe('unknown');
    expect(r.summary).toMatch(/only 1 of 448 writes accepted \(the store rejected 447 of 448\)/);
    expect(verdict(h, config({ fencing: true }))).toBe('unknown');
  });

  it('a fenced store that rejected most but accepted enough: valid with a warning', () => {
    const r = checkEvidence(lockSet(30, { fenced: true, rejectAllBut: 10 }).ops, {
      writes: true,
      storeKey: S,
      fencing: true,
    });
    expect(r.valid).toBe(true);
    expect(r.details.warnings[0]).toMatch(/the store rejected 20 of 30 writes \(66.7%\)/);
    expect(r.summary).toMatch(/warning: the store rejected 20 of 30/);
    // The writes turned away, as the report shows them: under fencing's name, not counted.
    const turnedAway = evidenceViolations(JSON.parse(JSON.stringify(r)));
    expect(turnedAway).toHaveLength(20);
    expect(turnedAway[0]).toMatchObject({ kind: 'turned-away', checker: 'fencing', shownOnly: true });
    expect(turnedAway[0]?.words).toMatch(
      /^the store turned away process 1's write with stale token 11 \(op #\d+\): a stale holder kept out$/,
    );
  });

  it('no read of the store: unknown', () => {
    const h = new H();
    for (let i = 0; i < 5; i++) h.acquire(0).invoke(0, 'write', S, [i]).ok(0, 'write', S, [i]).release(0);
    const r = checkEvidence(h.ops, { writes: true, storeKey: S, fencing: false });
    expect(r.valid).toBe('unknown');
    expect(r.summary).toMatch(/no successful read of the store/);
  });

  it('mutex workload: grants alone are enough', () => {
    const h = new H().acquire(0).release(0).acquire(1).release(1);
    expect(checkEvidence(h.ops, { writes: false, storeKey: S, fencing: false }).valid).toBe(true);
    expect(checkEvidence(new H().acquire(0).release(0).ops, { writes: false, storeKey: S, fencing: false }).valid).toBe(
      'unknown',
    );
  });
});

/** How a hold ends: its release invoked, an info of the holder's (it issues no more), or never. */
type End = 'release' | 'info' | 'open';

/**
 * Holds one after another, each by a process of its own, at explicit times (ms): a grant of
 * validityMs held heldMs, then ended as `end` says; a gap of 5 ms between holds.
 */
function timedHolds(holds: readonly { validityMs: number; heldMs: number; end: End }[]): Op[] {
  const ops: Op[] = [];
  const add = (type: OpType, process: number, f: string, ms: number, value?: unknown) => {
    const op: Op = { index: ops.length, type, f, process, time: ms * 1e6, key: f === 'read' ? S : 'L' };
    if (value !== undefined) op.value = value;
    ops.push(op);
  };
  let t = 0;
  holds.forEach(({ validityMs, heldMs, end }, p) => {
    add('invoke', p, 'acquire', t);
    add('ok', p, 'acquire', t + 1, { validityMs, token: p + 1 });
    const until = t + 1 + heldMs;
    if (end === 'release') {
      add('invoke', p, 'release', until);
      add('ok', p, 'release', until + 1);
    } else if (end === 'info') {
      add('invoke', p, 'read', until - 1);
      add('info', p, 'read', until);
    }
    t = until + 5;
  });
  return ops;
}

describe('evidence: holds that outlived their lease', () => {
  it('counts a hold longer than its validity, to its release invoke, an info, or the end', () => {
    const ops = timedHolds([
      { validityMs: 1000, heldMs: 400, end: 'release' },
      { validityMs: 1000, heldMs: 2500, end: 'release' }, // auto-extended, or paused
      { validityMs: 1000, heldMs: 1000, end: 'release' }, // exactly its lease: not outlived
      { validityMs: 500, heldMs: 900, end: 'info' },
      { validityMs: 300, heldMs: 10, end: 'open' }, // ends with the history: 10 ms
    ]);
    expect(outlivedLeases(ops)).toEqual({ holds: 5, outlived: 2 });
    const r = checkEvidence(ops, { writes: false, storeKey: S, fencing: false });
    expect(r.valid).toBe(true);
    expect(r.summary).toBe('5 of 5 acquires granted, 2 of 5 holds outlived their lease');
    expect(r.details).toMatchObject({ leasedHolds: 5, outlived: 2 });
  });

  it("a hold never ended lasts to the history's last op", () => {
    const ops = timedHolds([{ validityMs: 100, heldMs: 10, end: 'open' }]);
    // Another process's read long after: the holder still believes it holds.
    ops.push({ index: 2, type: 'invoke', f: 'read', process: 9, key: S, time: 500e6 });
    expect(outlivedLeases(ops)).toEqual({ holds: 1, outlived: 1 });
  });

  it('says nothing of grants without a validity (a foreign history)', () => {
    const h = new H().acquire(0).release(0).acquire(1).release(1);
    expect(outlivedLeases(h.ops)).toEqual({ holds: 0, outlived: 0 });
    expect(checkEvidence(h.ops, { writes: false, storeKey: S, fencing: false }).summary).toBe(
      '2 of 2 acquires granted',
    );
  });

  it('counts exactly the holds held longer than their validity, on random runs', () => {
    const hold = fc.record({
      validityMs: fc.integer({ min: 1, max: 3000 }),
      heldMs: fc.integer({ min: 2, max: 6000 }),
      end: fc.constantFrom<End>('release', 'info'),
    });
    fc.assert(
      fc.property(fc.array(hold, { maxLength: 40 }), (holds) => {
        const expected = holds.filter((h) => h.heldMs > h.validityMs).length;
        expect(outlivedLeases(timedHolds(holds))).toEqual({ holds: holds.length, outlived: expected });
      }),
    );
  });
});
