import { describe, expect, it } from 'vitest';
import { countedVerdict, exitCodeFor } from '../checkers/result.js';
import { H } from '../test/unit/history-builder.js';
import { checkRun } from '../workloads/checks.js';
import { checkEvidence, evidenceViolations } from './evidence.js';

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
    const r = checkEvidence(lockSet(10).ops, { writes: true, storeKey: S, fenced: false });
    expect(r.valid).toBe(true);
    expect(r.summary).toBe('10 of 10 acquires granted, 10 of 10 writes accepted, 11 reads');
  });

  it('a backend whose every acquire is info: unknown (exit 2), not valid', () => {
    const h = new H();
    for (let p = 0; p < 20; p++) h.invoke(p, 'acquire', 'L').info(p, 'acquire', 'L', undefined, 'boom');
    h.invoke(99, 'read', S).ok(99, 'read', S, null);
    const r = checkEvidence(h.ops, { writes: true, storeKey: S, fenced: false });
    expect(r.valid).toBe('unknown');
    expect(r.summary).toMatch(/too little to judge safety: only 0 of 20 acquires granted \(0 failed, 20 timed out/);
    // The whole run: on c7f3e6e every checker passed vacuously and the run was valid, exit 0.
    expect(exitCodeFor(verdict(h, config()))).toBe(2);
    expect(exitCodeFor(verdict(h, config({ workload: 'mutex' })))).toBe(2);
  });

  it('a fenced store that rejected 447 of 448 writes: unknown, and says so', () => {
    const h = lockSet(448, { fenced: true, rejectAllBut: 1 });
    const r = checkEvidence(h.ops, { writes: true, storeKey: S, fenced: true });
    expect(r.valid).toBe('unknown');
    expect(r.summary).toMatch(/only 1 of 448 writes accepted \(the store rejected 447 of 448\)/);
    expect(verdict(h, config({ fencing: true }))).toBe('unknown');
  });

  it('a fenced store that rejected most but accepted enough: valid with a warning', () => {
    const r = checkEvidence(lockSet(30, { fenced: true, rejectAllBut: 10 }).ops, {
      writes: true,
      storeKey: S,
      fenced: true,
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
    const r = checkEvidence(h.ops, { writes: true, storeKey: S, fenced: false });
    expect(r.valid).toBe('unknown');
    expect(r.summary).toMatch(/no successful read of the store/);
  });

  it('mutex workload: grants alone are enough', () => {
    const h = new H().acquire(0).release(0).acquire(1).release(1);
    expect(checkEvidence(h.ops, { writes: false, storeKey: S, fenced: false }).valid).toBe(true);
    expect(checkEvidence(new H().acquire(0).release(0).ops, { writes: false, storeKey: S, fenced: false }).valid).toBe(
      'unknown',
    );
  });
});
