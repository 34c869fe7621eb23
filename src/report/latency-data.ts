/** The latency plot's data: every completed client operation's latency at its invocation time, bounded. */
import type { LenientOp } from '../history/pairs.js';
import type { LatencyData } from './report-data-types.js';
import { ms } from './report-time.js';

/**
 * Latency (completion − invocation) of every completed client operation at its invocation
 * time, one series per kind. Past `maxPoints`, each kind keeps its slowest operation per
 * time bucket: the spikes are what a reader looks for. `kinds`: the operation kinds in
 * report order (as kindOrder gives them), one series each.
 */
export function latencyData(
  pairs: readonly LenientOp[],
  kinds: readonly string[],
  maxPoints: number,
  endMs: number,
): LatencyData {
  const kindIndex = new Map(kinds.map((k, i) => [k, i]));
  /** Each completed operation of a known kind: its kind, invocation time and latency, in ms. */
  const each = (visit: (k: number, x: number, y: number) => void) => {
    for (const p of pairs) {
      if (!p.completion) continue;
      const k = kindIndex.get(p.invoke.f);
      if (k === undefined) continue;
      const lat = Math.max((p.completion.time - p.invoke.time) / 1e6, 0.001);
      visit(k, ms(p.invoke.time), Math.round(lat * 1000) / 1000);
    }
  };
  let total = 0;
  each(() => total++);
  let downsampled: string | undefined;
  let series: [number, number][][];
  if (total > maxPoints && kinds.length > 0) {
    // Bucketed as the points come: a million points are never all made.
    const buckets = Math.max(1, Math.floor(maxPoints / kinds.length));
    const width = Math.max(endMs, 1) / buckets;
    const slowest = kinds.map(() => new Map<number, [number, number]>());
    each((k, x, y) => {
      const b = Math.min(buckets - 1, Math.floor(x / width));
      const perBucket = slowest[k] as Map<number, [number, number]>;
      const cur = perBucket.get(b);
      if (!cur || y > cur[1]) perBucket.set(b, [x, y]);
    });
    series = slowest.map((perBucket) => [...perBucket.values()]);
    const bucketMs = width >= 10 ? Math.round(width) : Math.round(width * 100) / 100;
    downsampled = `${total.toLocaleString('en-US')} latency points: the plot shows the slowest operation of each kind per ${bucketMs} ms.`;
  } else {
    series = kinds.map(() => []);
    each((k, x, y) => (series[k] as [number, number][]).push([x, y]));
  }
  const rows: [number, number, number][] = [];
  series.forEach((points, k) => {
    for (const [x, y] of points) rows.push([x, k, y]);
  });
  rows.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const x = rows.map((r) => r[0]);
  const y = kinds.map((_, k) => rows.map((r) => (r[1] === k ? r[2] : null)));
  return downsampled ? { kinds: [...kinds], x, y, downsampled } : { kinds: [...kinds], x, y };
}
