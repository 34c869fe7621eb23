/**
 * `lockchaos serve` on a large store: how long the index of 10,000 runs takes to read, the
 * first time and again (cached by mtime), and how long the page takes over HTTP. The goal:
 * the list in under 2 s.
 *
 *     npm run bench:serve                    10,000 runs, results.json of about 50 kB each
 *     node dist/perf/store.js 2000 5000     another count and results.json size (bytes)
 *
 * The store is synthetic and laid out as lockchaos writes one (src/serve/store-index.ts):
 * plain runs under <store>/<test>/<timestamp>/, and three nights of one campaign whose
 * configuration redis/lock-set/client-pause/unfenced stops meeting its expectation on the
 * third. Tests use the same writer (src/serve/*.test.ts, test/integration/serve-browser).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CampaignSummary, CellResult } from '../src/campaign-data/summary-record.js';
import { summaryJson } from '../src/campaign-data/write-summary.js';
import { DEFAULTS, fencingWord, type TestConfig } from '../src/run-data/config.js';
import { writeResults, writeTestJson } from '../src/run-data/run-folder.js';

export type SyntheticVerdict = true | false | 'unknown';

export interface SyntheticRun {
  backend: string;
  nemesis: string;
  fencing: boolean;
  seed: number;
  valid: SyntheticVerdict;
  /** Bytes of checker details to pad results.json with (a real one: tens of kB). */
  pad?: number;
  name?: string;
}

const stampOf = (iso: string) => iso.replace(/:/g, '-');

const reportHtml = (name: string, valid: SyntheticVerdict) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body data-ready="true"><h1>${name}</h1><p>verdict: <span id="verdict">${valid === true ? 'valid' : valid === false ? 'INVALID' : 'unknown'}</span></p></body></html>\n`;

/** One run folder, as the runner writes it (test.json and results.json by its writers; report.html, junit.xml). */
export function writeSyntheticRun(dir: string, run: SyntheticRun): void {
  mkdirSync(join(dir, 'nodes'), { recursive: true });
  const name = run.name ?? `${run.backend}-lock-set-${run.nemesis}-${fencingWord(run.fencing)}`;
  const config: TestConfig = {
    ...DEFAULTS,
    name,
    backend: run.backend,
    nemesis: run.nemesis,
    fencing: run.fencing,
    seed: run.seed,
  };
  writeTestJson(dir, config, { storeKey: 'lockchaos:set' });
  const detail = 'x'.repeat(Math.max(0, run.pad ?? 0));
  writeResults(dir, {
    valid: run.valid,
    conditions: [],
    config,
    timings: { totalS: 25, clusterS: 3 },
    results: [
      { checker: 'mutual-exclusion', valid: run.valid, counts: true, summary: 'synthetic', details: { detail } },
    ],
  });
  writeFileSync(join(dir, 'report.html'), reportHtml(name, run.valid));
  writeFileSync(join(dir, 'junit.xml'), '<testsuites/>\n');
}

export interface SyntheticCell {
  backend: string;
  nemesis: string;
  fencing: boolean;
  expect: 'valid' | 'invalid';
  /** Per seed, the verdict the run gave. */
  actual: SyntheticVerdict[];
}

/**
 * One campaign folder, <store>/campaigns/<name>/<startedAt>/, with summary.json (written by
 * the campaign's own writer, campaign-data/write-summary.ts), summary.html and its runs.
 */
export function writeSyntheticCampaign(store: string, name: string, startedAt: string, cells: SyntheticCell[]): string {
  const dir = join(store, 'campaigns', name, stampOf(startedAt));
  const results: CellResult[] = [];
  cells.forEach((c, entry) => {
    const configuration = `${c.backend}/lock-set/${c.nemesis}/${fencingWord(c.fencing)}`;
    c.actual.forEach((valid, i) => {
      const seed = i + 1;
      const index = results.length;
      const id = `${configuration}/seed-${seed}`;
      const runDir = join(
        dir,
        'runs',
        `${String(index + 1).padStart(3, '0')}-${id.replace(/\//g, '-')}`,
        stampOf(startedAt),
      );
      writeSyntheticRun(runDir, { backend: c.backend, nemesis: c.nemesis, fencing: c.fencing, seed, valid });
      const actual = valid === true ? 'valid' : valid === false ? 'invalid' : 'unknown';
      const config: TestConfig = {
        ...DEFAULTS,
        name: configuration,
        backend: c.backend,
        nemesis: c.nemesis,
        fencing: c.fencing,
        seed,
      };
      results.push({
        cell: {
          index,
          entry,
          id,
          backend: c.backend,
          workload: 'lock-set',
          nemesis: c.nemesis,
          fencing: c.fencing,
          seed,
          expect: c.expect,
          config,
        },
        actual,
        met: actual === c.expect,
        message: actual === c.expect ? `${actual} as expected` : `expected ${c.expect}, got ${actual}`,
        durationS: 25,
        dir: runDir,
        report: join(runDir, 'report.html'),
      });
    });
  });
  const summary: CampaignSummary = {
    name,
    source: `${name}.yaml`,
    dir,
    totalCells: results.length,
    startedAt,
    finishedAt: startedAt,
    interrupted: false,
    state: 'finished',
    met: results.every((r) => r.met),
    cells: results,
  };
  writeFileSync(join(dir, 'summary.json'), summaryJson(summary));
  writeFileSync(
    join(dir, 'summary.html'),
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${name}</title></head><body data-ready="true"><h1>campaign ${name}</h1></body></html>\n`,
  );
  return dir;
}

/** The nightly campaign of three nights: redis client-pause unfenced flips on the third. */
export function writeThreeNights(store: string): string[] {
  const nights = ['2026-11-28T02:00:00.000Z', '2026-11-29T02:00:00.000Z', '2026-11-30T02:00:00.000Z'];
  return nights.map((startedAt, night) =>
    writeSyntheticCampaign(store, 'nightly', startedAt, [
      { backend: 'redis', nemesis: 'none', fencing: false, expect: 'valid', actual: [true, true] },
      { backend: 'redis', nemesis: 'client-pause', fencing: true, expect: 'valid', actual: [true, true] },
      // The flip: caught every night, then on the third night it is not (the harness missed it).
      {
        backend: 'redis',
        nemesis: 'client-pause',
        fencing: false,
        expect: 'invalid',
        actual: night < 2 ? [false, false] : [true, true],
      },
      // Flaky all along: one seed of two.
      { backend: 'redlock', nemesis: 'client-pause', fencing: false, expect: 'invalid', actual: [false, true] },
    ]),
  );
}

const BACKENDS = ['redis', 'redlock', 'etcd', 'zookeeper', 'postgres'];
const NEMESES = ['none', 'client-pause', 'pause-node', 'partition'];

/** `count` plain runs, 20 a test folder, about `pad` bytes of results.json each. */
export function writePlainRuns(store: string, count: number, pad: number): void {
  const start = Date.parse('2026-11-01T00:00:00.000Z');
  for (let i = 0; i < count; i++) {
    const backend = BACKENDS[i % BACKENDS.length] as string;
    const nemesis = NEMESES[Math.floor(i / BACKENDS.length) % NEMESES.length] as string;
    const fencing = i % 2 === 0 && backend !== 'redlock';
    const name = `${backend}-lock-set-${nemesis}-${fencingWord(fencing)}`;
    const at = new Date(start + i * 60_000).toISOString();
    const valid: SyntheticVerdict = i % 7 === 3 ? false : i % 11 === 5 ? 'unknown' : true;
    writeSyntheticRun(join(store, name, stampOf(at)), { backend, nemesis, fencing, seed: i, valid, pad, name });
  }
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 10_000);
  const pad = Number(process.argv[3] ?? 50_000);
  const { scanStore, IndexCache } = await import('../src/serve/store-index.js');
  const { serveStore } = await import('../src/serve/server.js');
  const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-bench-'));
  try {
    let t = performance.now();
    writePlainRuns(store, count, pad);
    writeThreeNights(store);
    console.log(
      `wrote ${count} runs (+24 campaign runs), results.json ~${pad} B each, in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const cache = new IndexCache();
    // Wall time, and the CPU time under it (the machine may be shared: the wall figure waits for it).
    const timed = <T>(what: string, f: () => T): T => {
      const [t0, c0] = [performance.now(), process.cpuUsage()];
      const out = f();
      const c = process.cpuUsage(c0);
      console.log(
        `${what}: ${(performance.now() - t0).toFixed(0)} ms (CPU ${((c.user + c.system) / 1000).toFixed(0)} ms)`,
      );
      return out;
    };
    const first = timed('index, first read', () => scanStore(store, cache));
    console.log(`  ${first.runs.length} runs, ${first.campaigns.length} campaign folders`);
    timed('index, again (cached by mtime)', () => scanStore(store, cache));
    const served = await serveStore(store, 0);
    try {
      for (const [what, path] of [
        ['page, first request', '/'],
        ['page, again', '/'],
        ['page filtered (verdict=invalid, backend=redis)', '/?verdict=invalid&backend=redis'],
      ] as const) {
        t = performance.now();
        const res = await fetch(new URL(path, served.url));
        const body = await res.text();
        console.log(
          `${what}: HTTP ${res.status}, ${(body.length / 1024).toFixed(0)} kB in ${(performance.now() - t).toFixed(0)} ms`,
        );
      }
      timed('index, a fresh cache (a new server)', () => scanStore(store));
    } finally {
      await served.close();
    }
  } finally {
    rmSync(store, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
