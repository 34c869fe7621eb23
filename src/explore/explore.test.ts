import { describe, expect, it } from 'vitest';
import type { Op } from '../history/op.js';
import { aimedFaults } from '../nemesis/aimed-faults.js';
import { parseNemesisSpec } from '../nemesis/spec.js';
import { UserError } from '../util/errors.js';
import { budgetAllows, parseBudget } from './budget.js';
import { candidatesFor, nodeFaultsLast } from './candidates.js';
import { learnedPoints } from './explore.js';
import { onlyTheLeaseArgument } from './lease-argument.js';
import { orderCandidates } from './order.js';
import { tryPlan } from './plan.js';
import { explorationTable, formatTable, shrunkLine } from './table.js';

const coverage = [
  { point: 'after-grant', reached: 20, hits: 0, followed: 0 },
  { point: 'in-hold', reached: 20, hits: 0, followed: 0 },
  { point: 'before-release', reached: 20, hits: 0, followed: 0 },
  { point: 'in-extend', reached: 0, hits: 0, followed: 0 },
  { point: 'wire:CLIENT', reached: 4, hits: 0, followed: 0 },
  { point: 'wire:SET', reached: 60, hits: 0, followed: 0 },
  { point: 'wire:DEL', reached: 20, hits: 0, followed: 0 },
  { point: 'wire:GET', reached: 0, hits: 0, followed: 0 },
  { point: 'my-point', hits: 0, followed: 0 },
];

describe('exploration', () => {
  it('learns the points a coverage counted, and every fault at each', () => {
    const points = learnedPoints(coverage);
    expect(points.map((p) => p.point)).toEqual([
      'after-grant',
      'in-hold',
      'before-release',
      'wire:CLIENT',
      'wire:SET',
      'wire:DEL',
    ]);
    const specs = candidatesFor(points).map((c) => c.spec);
    expect(specs).toContain('wire:DEL:hold');
    expect(specs).toContain('wire:SET:drop');
    expect(specs).not.toContain('client-kill:at=in-extend');
    expect(specs).toContain('client-pause:at=after-grant');
    expect(specs).toHaveLength(3 * 2 + 3 * 4);
    expect(learnedPoints([])).toEqual([]);
  });

  it('adds a node pause and kill on one node while a client is at each code point, where the nodes can take them', () => {
    const points = [
      { point: 'before-release', reached: 5 },
      { point: 'wire:DEL', reached: 5 },
    ];
    const specs = candidatesFor(points, false, ['pause-node', 'kill-node']).map((c) => c.spec);
    expect(specs).toEqual([
      'client-kill:at=before-release',
      'pause-node:one:at=before-release',
      'kill-node:one:at=before-release',
      'wire:DEL:pause',
      'wire:DEL:hold',
      'wire:DEL:stop',
      'wire:DEL:drop',
    ]);
    // Each is a spec --nemesis takes, aimed at the point for the coverage.
    for (const spec of specs.filter((s) => s.includes('-node'))) {
      expect(aimedFaults(parseNemesisSpec(spec))).toEqual([{ kind: spec.split(':')[0], point: 'before-release' }]);
    }
    expect(candidatesFor(points, false).map((c) => c.spec)).not.toContain('pause-node:one:at=before-release');
    // Tried after every point's own faults, in each round.
    expect(nodeFaultsLast(candidatesFor(points, false, ['pause-node', 'kill-node'])).map((c) => c.spec)).toEqual([
      'client-kill:at=before-release',
      'wire:DEL:pause',
      'wire:DEL:hold',
      'wire:DEL:stop',
      'wire:DEL:drop',
      'pause-node:one:at=before-release',
      'kill-node:one:at=before-release',
    ]);
  });

  it('orders the requests sent as often as acquires first, then the hold, the never-reached last', () => {
    const points = learnedPoints(coverage);
    const order = [...new Set(orderCandidates(candidatesFor(points), points, 20).map((c) => c.point))];
    expect(order).toEqual(['wire:DEL', 'after-grant', 'in-hold', 'before-release', 'wire:CLIENT', 'wire:SET']);
    // A point already hit goes after one never hit, in the same rank.
    const hitFirst = orderCandidates(candidatesFor(points), points, 20, { 'after-grant': 3 });
    expect(hitFirst.map((c) => c.point).filter((p) => !p.startsWith('wire:'))[0]).toBe('in-hold');
  });

  it("ranks the library's own points reached once a cycle with its requests, and in-extend with the hold", () => {
    const rank = (extra: { point: string; reached: number }[]) => {
      const points = [...learnedPoints(coverage), ...extra];
      return [...new Set(orderCandidates(candidatesFor(points, false), points, 20).map((c) => c.point))];
    };
    // An extension before the holder works, a point the library announced: each acquire's own step.
    const once = rank([
      { point: 'in-extend', reached: 20 },
      { point: 'my-point', reached: 20 },
    ]);
    expect(once.slice(0, 3)).toEqual(['wire:DEL', 'in-extend', 'my-point']);
    // An auto-extension that came now and then is still inside the hold; another point is not.
    const rare = rank([
      { point: 'in-extend', reached: 2 },
      { point: 'my-point', reached: 2 },
    ]);
    expect(rare.indexOf('in-extend')).toBeLessThan(rare.indexOf('wire:SET'));
    expect(rare.indexOf('my-point')).toBeGreaterThan(rare.indexOf('before-release'));
  });

  it('plans rounds over seeds, skipping a point once broken', () => {
    const cands = candidatesFor([
      { point: 'wire:DEL', reached: 1 },
      { point: 'in-hold', reached: 1 },
    ]);
    const broken = new Set<string>();
    const got: string[] = [];
    for (const t of tryPlan(cands, 7, broken, 2)) {
      got.push(`${t.candidate.spec}@${t.seed}`);
      if (t.candidate.spec === 'wire:DEL:hold') broken.add('wire:DEL');
    }
    expect(got).toEqual([
      'wire:DEL:pause@7',
      'wire:DEL:hold@7',
      'client-pause:at=in-hold@7',
      'client-kill:at=in-hold@7',
      'client-pause:at=in-hold@8',
      'client-kill:at=in-hold@8',
    ]);
  });

  it('reads a budget in runs or minutes; 0, negatives and words are one line', () => {
    expect(parseBudget('12')).toEqual({ runs: 12 });
    expect(parseBudget('20m')).toEqual({ minutes: 20 });
    for (const bad of ['0', '-3', 'ten', '1.5', '0m', '']) expect(() => parseBudget(bad)).toThrow(UserError);
    expect(budgetAllows({ runs: 2 }, 1, 0)).toBe(true);
    expect(budgetAllows({ runs: 2 }, 2, 0)).toBe(false);
    expect(budgetAllows({ minutes: 1 }, 99, 59_000)).toBe(true);
    expect(budgetAllows({ minutes: 1 }, 0, 60_000)).toBe(false);
  });

  it('tables a row per point × fault: the broken first, with its finding and replay', () => {
    const cands = candidatesFor([{ point: 'wire:DEL', reached: 1 }]);
    const rows = explorationTable(
      cands,
      [
        { spec: 'wire:DEL:pause', point: 'wire:DEL', fault: 'wire:pause', seed: 1, verdict: 'valid', exitCode: 0 },
        {
          spec: 'wire:DEL:hold',
          point: 'wire:DEL',
          fault: 'wire:hold',
          seed: 1,
          verdict: 'invalid',
          exitCode: 1,
          headline: 'INVALID: two holders',
        },
      ],
      '--backend redis --time-limit 6',
    );
    expect(rows[0]).toMatchObject({
      spec: 'wire:DEL:hold',
      tries: 1,
      violations: 1,
      finding: 'INVALID: two holders',
      replay: 'lockchaos run --backend redis --time-limit 6 --nemesis wire:DEL:hold --seed 1',
    });
    expect(rows.find((r) => r.spec === 'wire:DEL:stop')?.finding).toBe('not tried (budget)');
    expect(rows.find((r) => r.spec === 'wire:DEL:pause')?.finding).toBe('no violation');
    expect(formatTable(rows)).toMatch(/Replay:\n {2}wire:DEL:hold: lockchaos run/);
    const ended = explorationTable(cands, [], '', true);
    expect(ended.find((r) => r.spec === 'wire:DEL:stop')?.finding).toBe(
      'not tried (ended at the first break, --until-broken)',
    );
  });

  it("carries a broken point's shrunk reproduction on its row: the smallest schedule's replay, or why none", () => {
    const cands = candidatesFor([{ point: 'wire:DEL', reached: 1 }]);
    const shrunk = {
      runs: 3,
      smaller: true,
      reproducer: '1 fault (wire at 2.0 s for 0.80 s), time limit 4 s, 2 clients',
      replay: 'lockchaos run --schedule /s/shrink/minimal-schedule.json',
      dir: '/s/shrink',
    };
    const broke = { point: 'wire:DEL', fault: 'wire:hold', seed: 1, verdict: 'invalid', exitCode: 1 } as const;
    const rows = explorationTable(cands, [{ ...broke, spec: 'wire:DEL:hold', shrunk }], '--backend redis');
    expect(rows[0]?.shrunk).toEqual(shrunk);
    expect(formatTable(rows)).toMatch(
      /wire:DEL:hold: lockchaos run .*\n {4}shrunk in 3 runs to 1 fault \(wire at 2\.0 s for 0\.80 s\), time limit 4 s, 2 clients: lockchaos run --schedule \/s\/shrink\/minimal-schedule\.json/,
    );
    expect(shrunkLine({ runs: 2, smaller: false, replay: 'lockchaos run --schedule x' })).toBe(
      'already minimal after 2 shrink runs: lockchaos run --schedule x',
    );
    expect(shrunkLine({ runs: 0, smaller: false, error: 'no schedule' })).toBe('not shrunk: no schedule');
  });
});

describe('the lease argument', () => {
  const overlap = (first: number, second: number) => ({
    checker: 'mutual-exclusion',
    valid: false,
    details: { pairs: [{ first: { process: first }, second: { process: second } }] },
  });
  const stopped = (process: number) =>
    [{ index: 0, process: 'nemesis', type: 'ok', f: 'start-wire', time: 0, value: { process } }] as Op[];

  it('is an overlap whose earlier holder the fault stopped, and what follows from it', () => {
    expect(onlyTheLeaseArgument([overlap(1, 2)], stopped(1))).toBe(true);
    const lost = { checker: 'lost-updates', valid: false };
    expect(onlyTheLeaseArgument([overlap(1, 2), lost], stopped(1))).toBe(true);
    // A node fault that kept process 2 stopped at its point while the node was out.
    const kept = [
      { index: 0, process: 'nemesis', type: 'ok', f: 'start-kill-node', time: 0, value: { holder: { process: 2 } } },
    ] as Op[];
    expect(onlyTheLeaseArgument([overlap(2, 41)], kept)).toBe(true);
  });

  it("is an overlap whose earlier holder's stated lease had run out by the next grant, whatever slowed it; not one it overstated", () => {
    // quicklock-fixed under wire:SET:drop of another client: process 1's write took 830 ms
    // on a loaded machine, and process 0 acquired after process 1's 1 s lease had run out.
    const ops = (validityMs: number) =>
      [
        { index: 0, process: 1, type: 'invoke', f: 'acquire', key: 'L', time: 0 },
        { index: 1, process: 1, type: 'ok', f: 'acquire', key: 'L', time: 1_000_000, value: { validityMs } },
        { index: 2, process: 0, type: 'invoke', f: 'acquire', key: 'L', time: 1_100_000_000 },
        { index: 3, process: 0, type: 'ok', f: 'acquire', key: 'L', time: 1_200_000_000, value: { validityMs } },
        { index: 4, process: 1, type: 'invoke', f: 'release', key: 'L', time: 1_210_000_000 },
      ] as Op[];
    const pair = {
      checker: 'mutual-exclusion',
      valid: false,
      details: {
        pairs: [
          {
            first: { process: 1, lock: 'L', start: 1_000_000, end: 1_210_000_000, acquireIndex: 1, releaseIndex: 4 },
            second: { process: 0, lock: 'L', start: 1_200_000_000, end: null, acquireIndex: 3 },
          },
        ],
      },
    };
    expect(onlyTheLeaseArgument([pair], ops(1000))).toBe(true);
    // The library said its lease was 5 s: the lock came free under a lease it claimed.
    expect(onlyTheLeaseArgument([pair], ops(5000))).toBe(false);
  });

  it("is not an overlap of holders no fault touched (a release that deleted the next holder's lock), nor a stale token", () => {
    expect(onlyTheLeaseArgument([overlap(4, 5)], stopped(1))).toBe(false);
    expect(onlyTheLeaseArgument([overlap(1, 2), { checker: 'fencing', valid: false }], stopped(1))).toBe(false);
    expect(onlyTheLeaseArgument([{ checker: 'lost-updates', valid: false }], stopped(1))).toBe(false);
  });

  it("is an overlap whose later holder a wire stop caught after its grant's request went: by its grant it was the earlier", () => {
    // wire:SET:stop: process 3's SET took the lock, then it was stopped until process 2 held
    // it; its acquire answered after process 2's: a holder stopped past its lease.
    const pair = {
      checker: 'mutual-exclusion',
      valid: false,
      details: { pairs: [{ first: { process: 2 }, second: { process: 3, start: 50, acquireIndex: 3 } }] },
    };
    const caught = (mode: string, time: number) =>
      [
        { index: 0, process: 3, type: 'invoke', f: 'acquire', time: 10 },
        { index: 1, process: 'nemesis', type: 'ok', f: 'start-wire', time, value: { process: 3, mode } },
        { index: 2, process: 2, type: 'ok', f: 'acquire', time: 40 },
        { index: 3, process: 3, type: 'ok', f: 'acquire', time: 50 },
      ] as Op[];
    expect(onlyTheLeaseArgument([pair], caught('stop', 20))).toBe(true);
    // A pause before a request: the request reached the server after the handover, and the
    // library took its answer for the lock's (renewlock's PEXPIRE): the library's.
    expect(onlyTheLeaseArgument([pair], caught('pause', 20))).toBe(false);
    // A stop before this acquire began stopped a client that was not acquiring.
    expect(onlyTheLeaseArgument([pair], caught('stop', 5))).toBe(false);
  });

  it('leaves out a pause at a standard point inside the hold when unfenced, and keeps the kill there', () => {
    const points = [
      { point: 'in-hold', reached: 5 },
      { point: 'in-extend', reached: 2 },
    ];
    expect(candidatesFor(points, false).map((c) => c.spec)).toEqual([
      'client-kill:at=in-hold',
      'client-pause:at=in-extend',
      'client-kill:at=in-extend',
    ]);
    expect(candidatesFor(points, true)).toHaveLength(4);
  });
});
