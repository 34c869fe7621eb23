import { describe, expect, it } from 'vitest';
import { aimedFaults } from '../src/nemesis/aimed-faults.js';
import { H } from '../test/unit/history-builder.js';
import { type CoverageRow, cappedPointsResult, codePointsResult, coverage, coverageLines } from './coverage.js';
import { ALREADY_HELD } from './fault-windows.js';
import { checkMutualExclusion } from './mutual-exclusion.js';

const TTL = 1;

/** p0 holds; a wire fault catches p1's DEL; then p2 acquires while p0 holds: an overlap after the hit. */
function hitThenOverlap() {
  return new H()
    .acquire(0)
    .invoke('nemesis', 'start-wire')
    .ok('nemesis', 'start-wire', undefined, { process: 1, at: 'wire:DEL', mode: 'pause' })
    .acquire(2)
    .invoke('nemesis', 'stop-wire')
    .ok('nemesis', 'stop-wire', undefined, {})
    .release(0)
    .release(2);
}

describe('code point coverage', () => {
  it('counts the hits of a fault aimed at a point, and those a counted violation followed', () => {
    const h = hitThenOverlap();
    const results = [checkMutualExclusion(h.ops, { counts: true })];
    expect(results[0]?.valid).toBe(false);
    const aimed = aimedFaults([{ kind: 'wire', aim: 'DEL', mode: 'pause' }]);
    const rows = coverage(h.ops, results, { 'wire:DEL': 7, 'wire:SET': 9, 'after-grant': 2 }, aimed, TTL);
    expect(rows[0]).toEqual({ point: 'wire:DEL', fault: 'wire:pause', reached: 7, hits: 1, followed: 1 });
    expect(rows.find((r) => r.point === 'in-extend')).toEqual({ point: 'in-extend', reached: 0, hits: 0, followed: 0 });
    expect(coverageLines(rows)[0]).toMatch(/wire:DEL\s+reached 7×\s+wire:pause: hit 1×, a violation followed 1 of 1/);
    expect(codePointsResult(rows)).toEqual([]);
  });

  it('says apart a hit let go at once, another client already holding the lock as it was caught', () => {
    const hit = (h: H, until: string, heldMs = 3) =>
      h
        .invoke('nemesis', 'start-client-pause')
        .ok('nemesis', 'start-client-pause', undefined, { process: 1, at: 'before-release' })
        .invoke('nemesis', 'stop-client-pause')
        .ok('nemesis', 'stop-client-pause', undefined, { client: 1, until, heldMs });
    const h = hit(hit(new H().acquire(0), ALREADY_HELD), 'another client held the lock', 926).release(0);
    const aimed = aimedFaults([{ kind: 'client-pause', aim: 'at=before-release' }]);
    const [row] = coverage(h.ops, [], { 'before-release': 4 }, aimed, TTL);
    expect(row).toMatchObject({ point: 'before-release', hits: 2, brief: 1, followed: 0 });
    expect(row?.held).toEqual({ shortestMs: 3, longestMs: 926 });
    expect(coverageLines([row as CoverageRow])[0]).toMatch(
      /client-pause: hit 2× holding its client 0.00–0.93 s \(1 of them let go at once: another client already held the lock\), a violation followed 0 of 2$/,
    );
    const once = hit(new H().acquire(0), ALREADY_HELD).release(0);
    const [only] = coverage(once.ops, [], { 'before-release': 1 }, aimed, TTL);
    expect(coverageLines([only as CoverageRow])[0]).toMatch(/hit 1× holding its client 0.00 s \(each let go at once: /);
  });

  it('a violation not counted (shown only) follows no hit', () => {
    const h = hitThenOverlap();
    const results = [checkMutualExclusion(h.ops, { counts: false })];
    const rows = coverage(h.ops, results, { 'wire:DEL': 1 }, aimedFaults([{ kind: 'wire', aim: 'DEL' }]), TTL);
    expect(rows[0]).toMatchObject({ hits: 1, followed: 0 });
  });

  it('a fault aimed at a point no client reached: not exercised, and the verdict at best unknown', () => {
    const h = new H().acquire(0).release(0);
    const aimed = aimedFaults([
      { kind: 'wire', aim: 'INCR', mode: 'pause' },
      { kind: 'client-pause', aim: 'at=in-extend' },
    ]);
    const rows = coverage(h.ops, [], { 'wire:INCRBY': 3 }, aimed, TTL);
    expect(rows.slice(0, 2)).toEqual([
      { point: 'wire:INCR', fault: 'wire:pause', reached: 0, hits: 0, followed: 0 },
      { point: 'in-extend', fault: 'client-pause', reached: 0, hits: 0, followed: 0 },
    ]);
    expect(coverageLines(rows)[0]).toMatch(/wire:INCR\s+not exercised\s+wire:pause: never hit/);
    const [result] = codePointsResult(rows);
    expect(result).toMatchObject({ checker: 'code-points', counts: true, valid: 'unknown' });
    expect(result?.summary).toMatch(/aimed at wire:INCR, but no client reached it \(the clients sent wire:INCRBY\)/);
  });

  it("shows a holder's pause at in-hold, where it catches its client; one that never hit leaves the verdict alone", () => {
    const aimed = aimedFaults([{ kind: 'client-pause', aim: 'holder' }]);
    expect(aimed).toEqual([{ kind: 'client-pause', point: 'in-hold', counts: false }]);
    const hit = new H()
      .acquire(0)
      .invoke('nemesis', 'start-client-pause')
      .ok('nemesis', 'start-client-pause', undefined, { client: 0, process: 0, at: 'in-hold', ms: 1500 })
      .acquire(1)
      .invoke('nemesis', 'stop-client-pause')
      .ok('nemesis', 'stop-client-pause', undefined, { client: 0 })
      .release(0)
      .release(1);
    const results = [checkMutualExclusion(hit.ops, { counts: true })];
    const rows = coverage(hit.ops, results, { 'in-hold': 9 }, aimed, TTL);
    expect(rows[0]).toEqual({
      point: 'in-hold',
      fault: 'client-pause',
      reached: 9,
      hits: 1,
      followed: 1,
      counts: false,
    });
    expect(coverageLines(rows)[0]).toMatch(/in-hold\s+reached 9×\s+client-pause: hit 1×, a violation followed 1 of 1/);
    const never = coverage(new H().acquire(0).release(0).ops, [], { 'in-hold': 1 }, aimed, TTL);
    expect(never[0]).toMatchObject({ point: 'in-hold', hits: 0 });
    expect(codePointsResult(never)).toEqual([]);
  });
});

describe('programs that announce too many points', () => {
  it('lines for 200,000 points without overflowing the stack', () => {
    const rows = Array.from({ length: 200_000 }, (_, i) => ({ point: `p-${i}`, reached: 1, hits: 0, followed: 0 }));
    expect(coverageLines(rows)).toHaveLength(200_000);
  });

  it('a note among the results that does not count, naming the clients once each', () => {
    expect(cappedPointsResult([], 64)).toEqual([]);
    const [note] = cappedPointsResult([2, 0, 2], 64);
    expect(note).toMatchObject({ checker: 'code-points-capped', counts: false });
    expect(note?.summary).toMatch(/^the client program of c0, c2 announced more than 64 distinct code points/);
  });
});
