/**
 * A benchmark as a campaign: one matrix entry per backend × concurrency × backoff jitter,
 * the mutex workload (acquire, hold, release: no data store in the way) with no faults by
 * default, one seed a point. Every cell expects any verdict: it measures.
 */
import { BACKOFF } from '../backends/backend.js';
import type { CampaignFile, MatrixEntryFile } from '../campaign/spec.js';

export interface BenchSpec {
  backends: string[];
  concurrency: number[];
  /** Backoff jitters, ms (0: none): each point runs with each. */
  jitterMs: number[];
  /** 'none', or one fault kind (with its aim). */
  nemesis: string;
  timeLimitS: number;
  holdMs: number;
  seed: number;
  name: string;
  /** A target inventory's absolute path (--target): the lock service the bench runs on. */
  target?: string;
}

export const BENCH_DEFAULTS = {
  backends: ['redis', 'redlock', 'etcd', 'zookeeper'],
  concurrency: [1, 8, 32],
  jitterMs: [BACKOFF.jitterMs, 0],
  nemesis: 'none',
  // 24 points of the default bench at ~6 s of load, plus cluster start, client processes,
  // checks and teardown: 5 minutes measured on a quiet 2-core machine, one at a time.
  timeLimitS: 6,
  holdMs: 5,
  seed: 1,
} as const;

export interface BenchPoint {
  backend: string;
  concurrency: number;
  jitterMs: number;
}

export const benchLabel = (p: Pick<BenchPoint, 'concurrency' | 'jitterMs'>) =>
  `concurrency=${p.concurrency},jitter=${p.jitterMs}`;

/** The points, in the order they run: backend, then concurrency, then jitter. */
export function benchPoints(spec: Pick<BenchSpec, 'backends' | 'concurrency' | 'jitterMs'>): BenchPoint[] {
  return spec.backends.flatMap((backend) =>
    spec.concurrency.flatMap((concurrency) => spec.jitterMs.map((jitterMs) => ({ backend, concurrency, jitterMs }))),
  );
}

export function benchCampaign(spec: BenchSpec): CampaignFile {
  const matrix: MatrixEntryFile[] = benchPoints(spec).map((p) => ({
    backend: p.backend,
    workload: 'mutex',
    nemesis: spec.nemesis,
    fencing: 'off',
    label: benchLabel(p),
    expect: 'any',
    options: { concurrency: p.concurrency, 'backoff-jitter': p.jitterMs },
  }));
  return {
    name: spec.name,
    description: `lockchaos bench: ${spec.backends.join(', ')} at ${spec.concurrency.join(', ')} clients, nemesis ${spec.nemesis}`,
    seeds: [spec.seed],
    defaults: {
      'time-limit': spec.timeLimitS,
      hold: spec.holdMs,
      rate: 0,
      ...(spec.target === undefined ? {} : { target: spec.target }),
    },
    matrix,
  };
}
