import { describe, expect, it } from 'vitest';
import { specOf } from '../../test/unit/campaign-plan.js';
import { expectOwnScriptsOnly } from '../../test/unit/page-policy.js';
import { expandCells } from '../campaign/matrix.js';
import type { Op } from '../history/op.js';
import { DEFAULTS } from '../run-data/config.js';
import { BENCH_DEFAULTS, benchCampaign } from './grid.js';
import { benchHtml, benchTable, ranking } from './html.js';
import { type BenchResult, measureBench } from './measure.js';

/** Grants in turn: each [process, invoke ms, ok ms]; a null ok ms is a fail. */
function grants(list: [number, number, number | null][]): Op[] {
  const ops: Op[] = [];
  for (const [p, at, done] of list) {
    ops.push({ index: 0, type: 'invoke', f: 'acquire', process: p, time: at * 1e6 });
    ops.push(
      done === null
        ? { index: 0, type: 'fail', f: 'acquire', process: p, time: (at + 5000) * 1e6 }
        : { index: 0, type: 'ok', f: 'acquire', process: p, time: done * 1e6, value: { validityMs: 1000 } },
    );
  }
  return ops.sort((a, b) => a.time - b.time).map((op, index) => ({ ...op, index }));
}

const spec = { ...BENCH_DEFAULTS, backends: ['redis', 'etcd'], concurrency: [1, 2], jitterMs: [25, 0], name: 'bench' };

describe('measuring a bench run', () => {
  it('latency, handoffs, fairness and failures, hand-computed', () => {
    // Clients 0 and 1 (process 2 is client 0 after an info): grants to 0, 0, 1, 0 (process 2); one fail.
    const history = grants([
      [0, 0, 2],
      [0, 10, 14],
      [1, 11, 20],
      [2, 30, 31],
      [1, 40, null],
    ]);
    const r = measureBench(
      { backend: 'redis', concurrency: 2, jitterMs: 25 },
      { dir: '/b/runs/x', history, valid: true, config: { ...DEFAULTS, name: 'b', seed: 1, concurrency: 2 } },
    );
    expect(r).toMatchObject({ attempts: 5, grants: 4, failed: 1, availability: 0.8 });
    // Latencies 2, 4, 9, 1 ms: p50 is the 2nd smallest (2), p99 the largest.
    expect(r.latencyMs.map((q) => q.value)).toEqual([2, 9, 9, 9]);
    expect(r.latencyMs.every((q) => q.n === 4 && !q.meaningful)).toBe(true);
    // Grants in time order 0, 0, 1, 0: two handoffs over a span of 5.04 s (0 to the fail at 5040 ms).
    expect(r.handoffsPerS).toBeCloseTo(2 / 5.04, 2);
    // Client 0 got 3, client 1 got 1: (3+1)^2 / (2·(9+1)) = 0.8.
    expect(r.fairness).toBeCloseTo(0.8, 12);
  });

  it('ranks backends by p99 at the highest concurrency, and marks thin tails', () => {
    const point = (backend: string, p99: number): BenchResult => ({
      backend,
      concurrency: 2,
      jitterMs: 25,
      dir: `/b/runs/${backend}`,
      spanS: 6,
      attempts: 10,
      grants: 10,
      failed: 0,
      availability: 1,
      latencyMs: [0.5, 0.99, 0.999, 0.9999].map((q) => ({
        q,
        value: q === 0.5 ? 1 : p99,
        n: 10,
        beyond: 10 * (1 - q),
        meaningful: false,
      })),
      grantsPerS: 1,
      handoffsPerS: 1,
      fairness: 1,
      verdict: true,
    });
    const report = {
      spec,
      dir: '/b',
      startedAt: 'a',
      finishedAt: 'b',
      durationS: 60,
      points: [point('redis', 30), point('etcd', 12)],
    };
    expect(ranking(report).map((r) => r.backend)).toEqual(['etcd', 'redis']);
    expect(benchTable(report)).toMatch(/1\. etcd {2}p99 12\.0\* ms\n {2}2\. redis {2}p99 30\.0\* ms/);
    const html = benchHtml(report);
    expect(html).toContain('href="runs/etcd/report.html"');
    expect(html).toContain('class="num thin"');
    expectOwnScriptsOnly(html);
  });
});

describe('a bench as a campaign', () => {
  it('one measuring cell per backend × concurrency × jitter, on the mutex workload', () => {
    const cells = expandCells(specOf(benchCampaign(spec), 'bench'));
    expect(cells).toHaveLength(8);
    expect(cells[3]).toMatchObject({
      expect: 'any',
      id: 'redis/mutex/none/unfenced/concurrency=2,jitter=0/seed-1',
      config: { concurrency: 2, backoffJitterMs: 0, holdMs: BENCH_DEFAULTS.holdMs, rate: 0, workload: 'mutex' },
    });
  });
});
