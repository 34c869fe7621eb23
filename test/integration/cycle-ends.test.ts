/**
 * Every cycle ends on the record, on every backend. A client the harness stops in the
 * middle of a cycle (its grace at the end ran out) has its cycle ended in the history
 * (`info`, "harness: ...") where it was killed, so its hold never lasts "to the end of the
 * test" and no later grant reads as an overlap the harness made. A PostgreSQL client
 * killed from outside frees its advisory lock at once (its session closes) and another
 * client takes it at once: the lost worker's hold ends on the record, and the overlap that
 * was the harness's doing is not counted.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { holds } from '../../checkers/mutual-exclusion.js';
import { DEFAULTS } from '../../src/run-data/parameters.js';
import { prepareRun } from '../../src/run-data/prepare.js';
import { type RunObserver, run } from '../../src/runner/run.js';
import { freshStore, leftovers, requireEngine } from './support.js';

const skip = await requireEngine();
const store = freshStore();

/** Three clients, holds of most of a second under a long lease, no faults. */
const config = (backend: string, seed: number) => ({
  ...DEFAULTS,
  name: '',
  seed,
  storeDir: store,
  backend,
  nemesis: 'none',
  fencing: false,
  timeLimitS: 4,
  concurrency: 3,
  ttlMs: 10_000,
  holdMs: 800,
  acquireTimeoutMs: 2000,
});

const BACKENDS = ['redis', 'redlock', 'redis-sentinel', 'etcd', 'zookeeper', 'postgres'];

describe.skipIf(skip)('a client stopped in the middle of its cycle', () => {
  // Two at a time (the integration project's maxConcurrency): each run has its own servers,
  // and each is stopped on a grant it saw, not at a time.
  it.concurrent.each(BACKENDS)('%s: its cycle ends on the record, and no overlap is counted', async (backend) => {
    // Aimed at the state that matters, not at a lucky moment: the run is stopped on a grant
    // (once the workload has run a second), so a client holds when the clients are told to
    // stop, and a grace far shorter than its hold kills it between its acquire and release.
    const stop = new AbortController();
    const r = await run(await prepareRun({ ...config(backend, 11), timeLimitS: 30, holdMs: 2000 }), {
      stopGraceMs: 150,
      latest: false,
      signal: stop.signal,
      progress: () => stopOnGrant(stop),
    });
    const ended = r.history.filter((o) => o.error?.startsWith('harness:'));
    expect(ended.length).toBeGreaterThan(0);
    expect(ended.every((o) => o.type === 'info' || o.f === 'release')).toBe(true);
    // Every hold ends; none lasts to the end of the test.
    expect(holds(r.history).filter((h) => !Number.isFinite(h.end))).toEqual([]);
    const me = r.results.find((c) => c.checker === 'mutual-exclusion');
    expect(me?.valid).toBe(true);
    // Stopped early, so not as configured: unknown, and nothing else went wrong.
    expect(r.conditions.map((c) => c.kind)).toEqual(['interrupted']);
    expect(r.valid).toBe('unknown');
  });

  it('postgres: a worker killed while it holds frees the lock, and its hold ends where it was last seen', async () => {
    let victim: number | undefined;
    const r = await run(await prepareRun(config('postgres', 12)), {
      latest: false,
      // Once the workload runs, the first grant to a client's first process: 200 ms into
      // its 800 ms hold, kill that client's worker from outside.
      progress: () => ({
        onOp(op) {
          if (victim !== undefined || op.f !== 'acquire' || op.type !== 'ok' || op.time < 1e9) return;
          if (typeof op.process !== 'number' || op.process >= 3) return;
          victim = op.process;
          const pid = workerPids()[op.process];
          setTimeout(() => pid && process.kill(pid, 'SIGKILL'), 200);
        },
        finish() {},
        stop() {},
      }),
    });
    expect(victim).toBeDefined();
    expect(r.conditions.map((c) => c.kind)).toEqual(['worker-lost']);
    const lostEnd = r.history.find((o) => o.process === victim && o.error?.startsWith('harness: client worker lost'));
    expect(lostEnd).toBeDefined();
    // Its session closed and another client took the lock: the record shows a grant after
    // the kill, and no overlap with the killed holder.
    expect(r.history.some((o) => o.f === 'acquire' && o.type === 'ok' && o.time > (lostEnd?.time ?? 0))).toBe(true);
    expect(r.results.find((c) => c.checker === 'mutual-exclusion')?.valid).toBe(true);
    expect(r.results.find((c) => c.checker === 'linearizable(mutex)')?.valid).toBe(true);
    // Valid needs a run as configured: a lost worker makes it unknown, never invalid.
    expect(r.valid).toBe('unknown');
    expect(await leftovers(process.pid)).toEqual([]);
  });
});

/** Aborts the run at the first grant recorded a second or more into the workload. */
function stopOnGrant(stop: AbortController): RunObserver {
  return {
    onOp(op) {
      if (op.f === 'acquire' && op.type === 'ok' && op.time >= 1e9) stop.abort('test: stopped on a grant');
    },
    finish() {},
    stop() {},
  };
}

/** This process's worker children, in the order the pool forked them (client 0 first). */
function workerPids(): number[] {
  return execFileSync('pgrep', ['-P', String(process.pid), '-f', 'worker/worker.js'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);
}
