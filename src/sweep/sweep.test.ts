import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../checkers/result.js';
import { specOf } from '../../test/unit/campaign-plan.js';
import { expectOwnScriptsOnly } from '../../test/unit/page-policy.js';
import { expandCells } from '../campaign/matrix.js';
import type { Op } from '../history/op.js';
import { DEFAULTS, type TestConfig } from '../run-data/config.js';
import { analysePoint } from './analyse.js';
import { pointLabel, sweepCampaign, sweepPoints } from './grid.js';
import { sweepHtml, sweepJson } from './html.js';
import { measureRun } from './measure.js';

/** Ops at given ms; indices in order. */
function history(ops: [number, Op['type'], string, Op['process'], unknown?][]): Op[] {
  return ops.map(([ms, type, f, process, value], index) => ({
    index,
    type,
    f,
    process,
    time: ms * 1e6,
    ...(value === undefined ? {} : { value }),
  }));
}

const config: TestConfig = { ...DEFAULTS, name: 't', seed: 4, nemesis: 'client-pause' };
const mutex = (overlaps: number, counts = true): CheckResult => ({
  checker: 'mutual-exclusion',
  valid: overlaps === 0,
  counts,
  summary: '',
  details: { overlaps },
});

describe('measuring a sweep run', () => {
  // Process 1 is granted at 100 ms believing 990 ms; paused at 150 ms for 1500 ms (it
  // believed 940 ms were left). Process 2 is paused at 3000 ms after it released: no holder.
  const h = history([
    [90, 'invoke', 'acquire', 1],
    [100, 'ok', 'acquire', 1, { validityMs: 990, token: 7 }],
    [149, 'invoke', 'start-client-pause', 'nemesis'],
    [150, 'ok', 'start-client-pause', 'nemesis', { client: 1, process: 1, pid: 9, ms: 1490 }],
    [1200, 'invoke', 'acquire', 2],
    [1201, 'ok', 'acquire', 2, { validityMs: 995, token: 8 }],
    [1649, 'invoke', 'stop-client-pause', 'nemesis'],
    [1650, 'ok', 'stop-client-pause', 'nemesis', { client: 1, pid: 9 }],
    [1700, 'invoke', 'release', 2],
    [1701, 'ok', 'release', 2, true],
    [3000, 'invoke', 'start-client-pause', 'nemesis'],
    [3001, 'ok', 'start-client-pause', 'nemesis', { client: 2, process: 2, pid: 10, ms: 1000 }],
    [4001, 'invoke', 'stop-client-pause', 'nemesis'],
    [4002, 'ok', 'stop-client-pause', 'nemesis', { client: 2, pid: 10 }],
  ]);
  const run = { dir: '/s/runs/001/t', config, history: h, results: [mutex(1)], valid: false as const, conditions: [] };

  it('takes pause lengths from start and stop as applied, and the validity left from the grant', () => {
    const m = measureRun(run);
    expect(m.pauses).toEqual([{ pauseMs: 1500, validityLeftMs: 940, drawnMs: 1490, atS: 0.15 }]);
    expect(m.pausesOfNoHolder).toBe(1);
    expect(m.validityMs).toEqual([990, 995]);
    expect(m).toMatchObject({ grants: 2, overlaps: 1, dataViolation: false, seed: 4, verdict: false });
  });

  it('a point: observed vs the formula, hand-computed', () => {
    const hit = measureRun(run);
    const miss = measureRun({ ...run, dir: '/s/runs/002/t', results: [mutex(0)], valid: true });
    const p = analysePoint({ pauseTtl: 1.5, ttlMs: 1000, concurrency: 5 }, 'x', [hit, miss]);
    // 2 of 2 pauses outlived their lease, so P(Pause > T_valid) = 1 and the formula says 1.
    expect(p.pauses).toMatchObject({ k: 2, n: 2, p: 1 });
    expect(p.predicted?.p).toBe(1);
    expect(p.observed).toMatchObject({ k: 1, n: 2, p: 0.5 });
    // 1 lies above the exact interval of 1 of 2 (0.013–0.987): they disagree.
    expect(p.disagree).toBe(true);
    expect(p.runs.map((r) => r.disagrees)).toEqual([false, true]);
    expect(p.violationsPerPause).toBe(0.5);
    expect(p.violationsPerHold).toBe(0.25);
    const html = sweepHtml({
      spec: { ...sweepSpec, fencing: false },
      dir: '/s',
      startedAt: 'a',
      finishedAt: 'b',
      points: [p],
    });
    expect(html).toContain('formula and observation disagree');
    expectOwnScriptsOnly(html);
    expect(html).toContain('href="runs/002/t/report.html"');
    expect(html).not.toMatch(/<script[^>]+src=/);
    const json = JSON.parse(sweepJson({ spec: sweepSpec, dir: '/s', startedAt: 'a', finishedAt: 'b', points: [p] }));
    expect(json.points[0].runs[1].dir).toBe('runs/002/t');
  });

  it('with fencing, overlaps are beliefs and a data violation is what counts', () => {
    const lost: CheckResult = { checker: 'lost-updates', valid: false, counts: true, summary: '' };
    expect(measureRun({ ...run, results: [mutex(3, false)] }).dataViolation).toBe(false);
    expect(measureRun({ ...run, results: [mutex(3, false), lost] }).dataViolation).toBe(true);
  });
});

const sweepSpec = {
  backend: 'redis',
  fencing: true,
  pauseTtl: [0.25, 2],
  ttlMs: [1000, 2000],
  concurrency: [5],
  trials: 3,
  firstSeed: 7,
  timeLimitS: 10,
  nemesisIntervalS: 2,
  holdMs: 100,
  name: 'sweep-redis-fenced',
};

describe('a sweep as a campaign', () => {
  it('one labelled entry a point, trials as seeds, fenced points expect valid', () => {
    const cells = expandCells(specOf(sweepCampaign(sweepSpec), 'sweep'));
    expect(sweepPoints(sweepSpec).map(pointLabel)).toEqual([
      'pause-ttl=0.25,ttl=1000,concurrency=5',
      'pause-ttl=2,ttl=1000,concurrency=5',
      'pause-ttl=0.25,ttl=2000,concurrency=5',
      'pause-ttl=2,ttl=2000,concurrency=5',
    ]);
    expect(cells).toHaveLength(12);
    expect(cells[3]).toMatchObject({
      entry: 1,
      seed: 7,
      expect: 'valid',
      id: 'redis/lock-set/client-pause/fenced/pause-ttl=2,ttl=1000,concurrency=5/seed-7',
      config: { pauseTtl: 2, ttlMs: 1000, concurrency: 5, timeLimitS: 10, nemesisIntervalS: 2, fencing: true },
    });
    const unfenced = expandCells(specOf(sweepCampaign({ ...sweepSpec, fencing: false }), 'sweep'));
    expect(new Set(unfenced.map((c) => c.expect))).toEqual(new Set(['any']));
  });
});
