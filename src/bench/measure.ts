/**
 * What one benchmark run measured, from its history: acquire latency (invocation to
 * completion of each granted acquire, waiting for the lock included), grants per client,
 * handoffs (a grant to another client than the last one), and failed acquires.
 */
import { pairLeniently } from '../history/pairs.js';
import type { LoadedRun } from '../run-data/run-folder.js';
import { jainIndex } from '../stats/fairness.js';
import { type Quantile, quantiles } from '../stats/quantiles.js';
import type { BenchPoint } from './grid.js';

/** The tail quantiles a bench reports. */
export const BENCH_QUANTILES = [0.5, 0.99, 0.999, 0.9999];

export interface BenchResult extends BenchPoint {
  dir: string;
  /** Seconds from the first client invocation to the last completion. */
  spanS: number;
  attempts: number;
  grants: number;
  /** Acquires that failed (timed out waiting) or ended unknown (info, or never completed). */
  failed: number;
  /** grants / attempts; null without attempts. */
  availability: number | null;
  /** Acquire latency of the grants, ms, with the count behind each and whether it can carry it. */
  latencyMs: Quantile[];
  grantsPerS: number;
  handoffsPerS: number;
  /** Jain's index of the grants each client got (1: equal shares). */
  fairness: number | null;
  verdict: boolean | 'unknown';
}

export function measureBench(
  point: BenchPoint,
  run: Pick<LoadedRun, 'dir' | 'history' | 'valid' | 'config'>,
): BenchResult {
  const latencies: number[] = [];
  const perClient = new Array<number>(run.config.concurrency).fill(0);
  const grantsInOrder: { time: number; client: number }[] = [];
  let attempts = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const { invoke, completion } of pairLeniently(run.history)) {
    if (invoke.process === 'nemesis') continue;
    first = Math.min(first, invoke.time);
    last = Math.max(last, completion?.time ?? invoke.time);
    if (invoke.f !== 'acquire') continue;
    attempts++;
    if (completion?.type !== 'ok') continue;
    latencies.push((completion.time - invoke.time) / 1e6);
    // A client's process number grows by the client count after each `info` (Jepsen's convention).
    const client = (invoke.process as number) % run.config.concurrency;
    perClient[client] = (perClient[client] ?? 0) + 1;
    grantsInOrder.push({ time: completion.time, client });
  }
  grantsInOrder.sort((a, b) => a.time - b.time);
  const handoffs = grantsInOrder.filter((g, i) => i > 0 && g.client !== grantsInOrder[i - 1]?.client).length;
  const spanS = last > first ? (last - first) / 1e9 : 0;
  const per = (x: number) => (spanS > 0 ? Math.round((x / spanS) * 100) / 100 : 0);
  return {
    ...point,
    dir: run.dir,
    spanS: Math.round(spanS * 1000) / 1000,
    attempts,
    grants: latencies.length,
    failed: attempts - latencies.length,
    availability: attempts > 0 ? latencies.length / attempts : null,
    latencyMs: quantiles(latencies, BENCH_QUANTILES).map((q) => ({
      ...q,
      value: q.value === null ? null : Math.round(q.value * 1000) / 1000,
    })),
    grantsPerS: per(latencies.length),
    handoffsPerS: per(handoffs),
    fairness: jainIndex(perClient),
    verdict: run.valid,
  };
}
