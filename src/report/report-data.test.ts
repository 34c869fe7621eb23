import { describe, expect, it } from 'vitest';
import { checkEvidence } from '../../checkers/evidence.js';
import { checkFencing } from '../../checkers/fencing.js';
import { checkLostUpdates } from '../../checkers/lost-updates.js';
import { checkMutualExclusion } from '../../checkers/mutual-exclusion.js';
import type { CheckResult } from '../../checkers/result.js';
import { H } from '../../test/unit/history-builder.js';
import type { Op } from '../history/op.js';
import { pairLeniently } from '../history/pairs.js';
import { BAR_OUTCOMES, barLabel, brief } from './bar-words.js';
import { latencyData } from './latency-data.js';
import { prepareReport } from './report-data.js';

const S = 'S';
/** Stored results go through JSON (Infinity becomes null): as the report reads them. */
const stored = (rs: CheckResult[]) => JSON.parse(JSON.stringify(rs)) as CheckResult[];

/**
 * p0 acquires; p0 is paused (nemesis) and p1 acquires too; both write; p0 releases;
 * a final read by p2 misses p0's element.
 */
function overlapping(): H {
  return new H()
    .acquire(0) // #0 #1
    .invoke('nemesis', 'start-client-pause')
    .ok('nemesis', 'start-client-pause', undefined, { client: 0, process: 0, ms: 1000 }) // #3
    .acquire(1) // #4 #5
    .invoke(1, 'write', S, [11])
    .ok(1, 'write', S, [11]) // #7
    .invoke('nemesis', 'stop-client-pause')
    .ok('nemesis', 'stop-client-pause', undefined, { client: 0 }) // #9
    .invoke(0, 'write', S, [10])
    .ok(0, 'write', S, [10]) // #11
    .release(1) // #12 #13
    .release(0) // #14 #15
    .invoke(1, 'write', S, [11, 12])
    .ok(1, 'write', S, [11, 12]) // #17: drops 10
    .invoke(2, 'read', S)
    .ok(2, 'read', S, [11, 12]);
}

function resultsOf(ops: Op[], fenced = false): CheckResult[] {
  return stored([
    checkMutualExclusion(ops, { counts: !fenced }),
    checkLostUpdates(ops, S),
    checkFencing(ops, { storeKey: S, fencing: fenced }),
  ]);
}

describe('report data', () => {
  it('has a lane per client process, bars from invoke to completion, holds and fault windows', () => {
    const h = overlapping();
    const d = prepareReport(h.ops, resultsOf(h.ops));
    expect(d.lanes.map((l) => l.process)).toEqual([0, 1, 2]);
    expect(d.fs).toEqual(['acquire', 'read', 'write', 'release']);
    expect(d.stats).toMatchObject({ ops: h.ops.length, operations: 8, shownOperations: 8, processes: 3 });
    const first = d.bars[0];
    // [lane, f, outcome, startMs, endMs, invoke index, completion index, value, error]
    expect(first).toEqual([0, 0, BAR_OUTCOMES.indexOf('ok'), 1, 2, 0, 1, '{}', '', '']);
    expect(d.holds).toContainEqual([0, 2, 15, 1, 14, -1]);
    expect(d.holds).toContainEqual([1, 6, 13, 5, 12, -1]);
    expect(d.faults).toEqual([
      {
        f: 'client-pause',
        label: 'client-pause · process 0 · 1000 ms',
        startMs: 4,
        endMs: 10,
        row: 0,
        lane: 0,
        process: 0,
      },
    ]);
    expect(d.endMs).toBe(20);
  });

  it('names the violations with the ops to highlight, counted checkers first, and focuses the first', () => {
    const h = overlapping();
    const d = prepareReport(h.ops, resultsOf(h.ops));
    expect(d.focus).toBe(0);
    const [overlap, lost] = d.violations;
    expect(overlap).toMatchObject({ checker: 'mutual-exclusion', counted: true, kind: 'overlap' });
    expect(overlap?.marks.map((m) => m.index)).toEqual([1, 5, 14, 12]);
    expect(overlap?.holds).toEqual([
      [0, 2, 15],
      [1, 6, 13],
    ]);
    expect(overlap?.overlap).toEqual([6, 13]);
    expect(overlap?.words).toMatch(
      /process 0 held 'L' from .* while process 1 also held 'L' .*; faults in effect: client-pause · process 0 · 1000 ms \(0\.004 s–0\.010 s\)$/,
    );
    expect(overlap?.view[0]).toBeLessThan(2);
    expect(overlap?.view[1]).toBeGreaterThan(15);
    expect(lost).toMatchObject({ checker: 'lost-updates', kind: 'lost' });
    expect(lost?.marks).toEqual([
      { index: 11, label: 'writes 10 (acknowledged)' },
      { index: 17, label: 'overwrites the set without 10' },
    ]);
  });

  it('does not count mutual exclusion with fencing, and lists it after the counted ones', () => {
    const h = overlapping();
    const rs = resultsOf(h.ops, true);
    const d = prepareReport(h.ops, [rs[0] as CheckResult, rs[1] as CheckResult]);
    expect(d.violations[0]?.checker).toBe('lost-updates');
    expect(d.violations.find((v) => v.checker === 'mutual-exclusion')?.counted).toBe(false);
  });

  it('draws stale tokens and grant regressions from the fencing details', () => {
    const h = new H()
      .acquire(0, 5)
      .acquire(1, 4)
      .invoke(0, 'write', S, [[1], 5])
      .ok(0, 'write', S, [[1], 5])
      .invoke(1, 'write', S, [[1, 2], 4])
      .ok(1, 'write', S, [[1, 2], 4]);
    const d = prepareReport(h.ops, stored([checkFencing(h.ops, { storeKey: S, fencing: true })]));
    expect(d.violations.map((v) => v.kind)).toEqual(['stale', 'regression']);
    expect(d.violations[0]?.marks.map((m) => m.index)).toEqual([5, 7]);
    expect(d.violations[0]?.words).toMatch(/accepted token 4 \(op #7\) after it had accepted token 5 \(op #5\)/);
  });

  it('shows a checker without structured details by its summary, and nothing to focus when valid', () => {
    const h = new H().acquire(0).release(0);
    const other: CheckResult = { checker: 'linearizable(mutex)', valid: false, summary: 'not linearizable at op 3' };
    expect(prepareReport(h.ops, [other]).violations).toEqual([
      {
        checker: 'linearizable(mutex)',
        counted: true,
        kind: 'other',
        words: 'not linearizable at op 3',
        marks: [],
        view: [0, 4],
      },
    ]);
    const valid = prepareReport(h.ops, resultsOf(h.ops));
    expect(valid.violations).toEqual([]);
    expect(valid.focus).toBe(-1);
  });

  it('marks fail, info and never-completed operations', () => {
    const h = new H()
      .invoke(0, 'acquire', 'L')
      .fail(0, 'acquire', 'L', undefined, 'busy')
      .invoke(1, 'acquire', 'L')
      .info(1, 'acquire', 'L', undefined, 'timeout')
      .invoke(2, 'read', S);
    const d = prepareReport(h.ops, []);
    expect(d.bars.map((b) => BAR_OUTCOMES[b[2]])).toEqual(['fail', 'info', 'pending']);
    expect(d.bars[0]?.[8]).toBe('busy');
    expect(d.bars[2]?.[4]).toBe(-1);
    expect(d.bars[2]?.[6]).toBe(-1);
  });

  it('keeps a large history bounded and says what it left out', () => {
    const h = overlapping();
    for (let i = 0; i < 300; i++) h.invoke(3, 'read', S).ok(3, 'read', S, [i]);
    const d = prepareReport(h.ops, resultsOf(h.ops), { maxBars: 60, maxLatencyPoints: 40 });
    expect(d.bars.length).toBeLessThanOrEqual(60);
    expect(d.stats.shownOperations).toBe(d.bars.length);
    // Every op a violation names is still drawn.
    const drawn = new Set(d.bars.flatMap((b) => [b[5], b[6]]));
    for (const v of d.violations) for (const m of v.marks) expect(drawn.has(m.index)).toBe(true);
    expect(d.notes.join(' ')).toMatch(/the timeline draws \d+ of them/);
    expect(d.notes.join(' ')).toMatch(/latency points: the plot shows the slowest operation of each kind per/);
    expect(d.latency.x.length).toBeLessThanOrEqual(40);
  });

  it('caps the lanes, keeping the processes a violation names', () => {
    const h = overlapping();
    for (let p = 10; p < 30; p++) h.invoke(p, 'read', S).ok(p, 'read', S, []).invoke(p, 'read', S).ok(p, 'read', S, []);
    const d = prepareReport(h.ops, resultsOf(h.ops), { maxLanes: 5 });
    expect(d.lanes).toHaveLength(5);
    expect(d.lanes.map((l) => l.process)).toEqual(expect.arrayContaining([0, 1]));
    expect(d.notes.join(' ')).toMatch(/23 client processes: the timeline shows 5 lanes/);
    expect(d.bars.every((b) => b[0] >= 0 && b[0] < 5)).toBe(true);
  });
});

describe('fault windows', () => {
  it('stack when they overlap, and say whom they hit', () => {
    const h = new H()
      .invoke('nemesis', 'start-partition')
      .ok('nemesis', 'start-partition', undefined, { shape: 'halves', drops: {}, ms: 900 })
      .invoke('nemesis', 'start-kill-node')
      .ok('nemesis', 'start-kill-node', undefined, { nodes: ['redis-1', 'redis-2'], ms: 500 })
      .invoke('nemesis', 'stop-partition')
      .ok('nemesis', 'stop-partition')
      .invoke('nemesis', 'start-clock')
      .ok('nemesis', 'start-clock', undefined, { nodes: ['zk-1'], jumpMs: -2000 });
    const d = prepareReport(h.ops, []);
    expect(d.faults.map((f) => [f.label, f.row, f.endMs])).toEqual([
      ['partition · halves · 900 ms', 0, 6],
      ['kill-node · redis-1, redis-2 · 500 ms', 1, -1],
      ['clock · zk-1 · clock -2000 ms', 0, -1],
    ]);
  });
});

describe('latency data', () => {
  it('aligns one column per kind on ascending invocation times', () => {
    const h = new H().acquire(0).invoke(0, 'read', S).ok(0, 'read', S, []).release(0);
    const l = latencyData(pairLeniently(h.ops), ['acquire', 'read', 'release'], 100, 10);
    expect(l.kinds).toEqual(['acquire', 'read', 'release']);
    expect(l.x).toEqual([1, 3, 5]);
    expect(l.y).toEqual([
      [1, null, null],
      [null, 1, null],
      [null, null, 1],
    ]);
    expect(l.downsampled).toBeUndefined();
  });
});

describe('brief values', () => {
  it('shortens long sets to their ends and length', () => {
    expect(brief(undefined)).toBe('');
    expect(brief([1, 2])).toBe('[1,2]');
    expect(brief(Array.from({ length: 40 }, (_, i) => i))).toBe('[0,1,2,…,38,39] (40)');
    expect(brief([Array.from({ length: 10 }, (_, i) => i), 7])).toBe('[[0,1,2,…,8,9] (10), 7]');
    expect(brief({ a: 'x'.repeat(200) }).length).toBeLessThanOrEqual(78);
  });
});

describe('report violations: every kind in view', () => {
  it('a lost update comes right after the first overlap, not after all of them', () => {
    // Three overlapping holders, then a lost update.
    const h = new H().acquire(0).acquire(1).acquire(2).acquire(3);
    h.invoke(0, 'write', S, [1]).ok(0, 'write', S, [1]);
    h.invoke(1, 'write', S, [2]).ok(1, 'write', S, [2]);
    h.invoke(4, 'read', S).ok(4, 'read', S, [2]);
    const d = prepareReport(h.ops, resultsOf(h.ops));
    const kinds = d.violations.map((v) => v.kind);
    expect(kinds.slice(0, 2)).toEqual(['overlap', 'lost']);
    expect(kinds.filter((k) => k === 'overlap').length).toBeGreaterThan(2);
  });

  it('a fenced run shows the stale write the store turned away', () => {
    const h = new H()
      .acquire(0, 1)
      .acquire(1, 2)
      .invoke(1, 'write', S, [[11], 2])
      .ok(1, 'write', S, [[11], 2])
      .invoke(0, 'write', S, [[10], 1])
      .fail(0, 'write', S, [[10], 1], 'rejected: stale token') // #7
      .invoke(2, 'read', S)
      .ok(2, 'read', S, [11]);
    const evidence = checkEvidence(h.ops, { writes: true, storeKey: S, fencing: true });
    const d = prepareReport(h.ops, stored([...resultsOf(h.ops, true), evidence]));
    const away = d.violations.filter((v) => v.kind === 'turned-away');
    expect(away).toHaveLength(1);
    expect(away[0]).toMatchObject({
      counted: false,
      words: "the store turned away process 0's write with stale token 1 (op #7): a stale holder kept out",
      marks: [{ index: 7, label: 'write rejected with stale token 1' }],
    });
    expect(d.violations.at(-1)?.kind).toBe('turned-away');
    // Nothing counts: the page opens on the write the store turned away, not on the overlap.
    expect(d.violations.some((v) => v.counted)).toBe(false);
    expect(d.focus).toBe(d.violations.length - 1);
  });
});

describe('a stale write turned away', () => {
  it('is shown from the pause its writer outlived its lease in, not alone', () => {
    const h = new H()
      .acquire(0, 1)
      .invoke('nemesis', 'start-client-pause')
      .ok('nemesis', 'start-client-pause', undefined, { client: 0, process: 0, ms: 1000 }) // 3 ms
      .acquire(1, 2);
    for (let i = 0; i < 200; i++) h.invoke(1, 'read', S).ok(1, 'read', S, []); // 400 ms of reads
    h.invoke('nemesis', 'stop-client-pause').ok('nemesis', 'stop-client-pause');
    h.invoke(0, 'write', S, [[10], 1]).fail(0, 'write', S, [[10], 1], 'rejected: stale token');
    const evidence = checkEvidence(h.ops, { writes: true, storeKey: S, fencing: true });
    const d = prepareReport(h.ops, stored([evidence]));
    const away = d.violations[d.focus];
    expect(away?.kind).toBe('turned-away');
    const writeAt = h.ops.length; // the rejected write's completion, in ms
    expect(away?.view[0]).toBeLessThan(3);
    expect(away?.view[1]).toBeGreaterThanOrEqual(writeAt);
  });
});

describe('bar labels', () => {
  it('say what an operation did, not its raw JSON', () => {
    expect(barLabel('acquire', { validityMs: 980, token: 20 })).toBe('token 20');
    expect(barLabel('acquire', { validityMs: 980 })).toBe('');
    expect(barLabel('write', [[3, 7, 12], 20])).toBe('+12 (token 20)');
    expect(barLabel('write', [3, 7, 12])).toBe('+12');
    expect(barLabel('write', [[3, 7], null])).toBe('+7');
    expect(barLabel('read', [3, 7, 12])).toBe('3 elements');
    expect(barLabel('read', null)).toBe('empty');
    expect(barLabel('release', { owner: 'x', token: 20 })).toBe('');
    expect(barLabel('cas', [1, 2])).toBe('[1,2]');
  });
});

describe('a failed release in the report', () => {
  it("carries the library's reason on its bar, as the history has it (the page shows it beside the outcome)", () => {
    const reason = "Cannot release a lock that's no longer owned";
    const h = new H().acquire(0).invoke(0, 'release', 'L').fail(0, 'release', 'L', undefined, reason);
    const data = prepareReport(h.ops, []);
    const bar = data.bars.find((b) => data.fs[b[1]] === 'release');
    expect(BAR_OUTCOMES[bar?.[2] as number]).toBe('fail');
    expect(bar?.[8]).toBe(reason);
  });
});
