/**
 * A run as the runner leaves it on disk, for tests that read runs back (loadRun, report.html):
 * an unfenced Redlock run under client pauses, its folder written to a fresh temporary folder.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestConfig } from '../../src/run-data/config.js';

/** The run's configuration, as its test.json holds it. */
export const runConfig: TestConfig = {
  name: 'redlock-lock-set-client-pause-unfenced',
  backend: 'redlock',
  workload: 'lock-set',
  nemesis: 'client-pause',
  fencing: false,
  timeLimitS: 15,
  concurrency: 5,
  ttlMs: 1000,
  holdMs: 100,
  rate: 0,
  acquireTimeoutMs: 5000,
  requestTimeoutMs: 1000,
  nemesisIntervalS: 2,
  seed: 3,
  storeDir: 'store',
};

/** A run folder: test.json (of `stored`), history.jsonl, and results.json when given. */
export function runFolder(history: string, results?: unknown, stored: object = runConfig): string {
  const dir = mkdtempSync(join(tmpdir(), 'lockchaos-run-'));
  writeFileSync(join(dir, 'test.json'), JSON.stringify(stored));
  writeFileSync(join(dir, 'history.jsonl'), history);
  if (results !== undefined) writeFileSync(join(dir, 'results.json'), JSON.stringify(results));
  return dir;
}
