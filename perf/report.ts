/**
 * How long `lockchaos report` takes on a large stored run, and how much memory: a lock-set
 * run of 1M operations (by default) with many lost updates, its checkers run by the report
 * (no results.json, as after a killed runner). The goal: under 30 s and 1 GiB.
 *
 *     npm run bench:report                  1M operations
 *     node dist/perf/report.js 200000      another size
 *     node dist/perf/report.js 1000000 --keep DIR
 *                                           the run folder written to DIR and kept, with
 *                                           its report.html and junit.xml: to compare
 *                                           the report of two builds byte for byte
 *
 * The history is simulated from the project's seeded PRNG: 10 clients take a lease lock
 * (a holder that pauses past its lease overlaps the next one: lost updates), read the set,
 * write it back with one new element, release; every 64 writes the store restarts empty (as
 * in redis-restart-amnesia), so sets stay short and nearly every element is lost.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Op } from '../src/history/op.js';
import { DEFAULTS, type TestConfig } from '../src/run-data/config.js';
import { runFile, writeTestJson } from '../src/run-data/run-folder.js';
import { Rng } from '../src/util/rng.js';

const STORE_KEY = 'lockchaos:set';

/** A lock-set history of about `operations` operations (each an invocation and its completion). */
export function simulateLockSet(operations: number, seed: number, clients = 10): Op[] {
  const rng = new Rng(seed);
  const history: Op[] = [];
  let time = 0;
  const emit = (type: Op['type'], f: string, process: number, key: string, value?: unknown) => {
    time += 1_000_000 + Math.floor(rng.next() * 1_000_000);
    const op: Op = { index: history.length, type, f, process, time, key };
    if (value !== undefined) op.value = value;
    history.push(op);
  };
  let store: number[] | null = null; // the key is absent until the first write
  let writes = 0;
  let element = 0;
  let ops = 0;
  const op = (process: number, f: string, key: string, value: unknown, result: unknown, type: Op['type'] = 'ok') => {
    emit('invoke', f, process, key, value);
    emit(type, f, process, key, result);
    ops++;
  };
  while (ops < operations) {
    // One holder, or (a pause past its lease) two whose reads and writes interleave.
    const holders = rng.next() < 0.2 ? 2 : 1;
    const procs = Array.from({ length: holders }, () => Math.floor(rng.next() * clients));
    if (holders === 2 && procs[0] === procs[1]) procs.pop();
    const reads: number[][] = [];
    for (const p of procs) {
      op(p, 'acquire', 'lockchaos:lock', undefined, { validityMs: 1000 });
      reads.push(store ?? []);
      op(p, 'read', STORE_KEY, undefined, store);
    }
    procs.forEach((p, i) => {
      const next = [...reads[i], element++];
      op(p, 'write', STORE_KEY, next, undefined);
      store = next;
      if (++writes % 64 === 0) store = null;
      op(p, 'release', 'lockchaos:lock', undefined, undefined, i === 0 && procs.length > 1 ? 'fail' : 'ok');
    });
  }
  op(clients, 'read', STORE_KEY, undefined, store);
  return history;
}

function child(dir: string): void {
  const started = performance.now();
  const log = console.log;
  console.log = () => {};
  void import('../src/cli/report.js').then(async ({ reportCommand }) => {
    const code = await reportCommand([dir]);
    console.log = log;
    const ms = performance.now() - started;
    process.stdout.write(JSON.stringify({ code, ms, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
  });
}

function main(): void {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    child(args[1]);
    return;
  }
  const keepAt = args.indexOf('--keep');
  const keep = keepAt >= 0 ? args[keepAt + 1] : undefined;
  const operations = Number(args.find((a, i) => !a.startsWith('--') && (keepAt < 0 || i !== keepAt + 1)) ?? 1_000_000);
  if (keep !== undefined) mkdirSync(keep, { recursive: true });
  const dir = keep ?? mkdtempSync(join(tmpdir(), 'lockchaos-bench-report-'));
  try {
    let t = performance.now();
    const history = simulateLockSet(operations, 7);
    const config: TestConfig = { ...DEFAULTS, name: 'bench-report', seed: 7, storeDir: dir };
    writeTestJson(dir, config);
    // Written in pieces: one string of the whole history would pass V8's limit.
    const lines: string[] = [];
    for (const op of history) lines.push(JSON.stringify(op));
    writeFileSync(runFile(dir, 'history'), '');
    for (let i = 0; i < lines.length; i += 100_000)
      writeFileSync(runFile(dir, 'history'), `${lines.slice(i, i + 100_000).join('\n')}\n`, { flag: 'a' });
    console.log(
      `report benchmark, node ${process.version}: a lock-set run of ${operations.toLocaleString('en-US')} operations (${history.length.toLocaleString('en-US')} events), generated in ${Math.round(performance.now() - t)} ms`,
    );
    t = performance.now();
    const run = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (run.status !== 0) {
      console.error(`lockchaos report failed:\n${run.stderr}`);
      process.exitCode = 1;
      return;
    }
    const m = JSON.parse(run.stdout) as { code: number; ms: number; maxRssMiB: number };
    const ok = m.ms < 30_000 && m.maxRssMiB <= 1024;
    console.log(
      `lockchaos report: ${(m.ms / 1000).toFixed(1)} s, peak RSS ${m.maxRssMiB.toFixed(0)} MiB, exit ${m.code} (goal: under 30 s and 1 GiB: ${ok ? 'met' : 'NOT met'})`,
    );
    if (!ok) process.exitCode = 1;
  } finally {
    if (keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
