/**
 * The campaign runner's bookkeeping, with run() replaced by a fake (no Docker): cells run
 * k at a time, an exception is a failed cell and the campaign goes on, aborting stops it
 * and writes what was finished; the matrix is expanded once.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { TestConfig } from '../run-data/config.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import type { RunHooks, RunResult } from '../runner/run.js';
import { sleep } from '../util/monotonic-clock.js';

const fake = vi.hoisted(() => ({ running: 0, maxRunning: 0, invoked: [] as string[], started: [] as string[] }));

vi.mock('../cluster/docker-engine.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../cluster/docker-engine.js')>()),
  ensureEngine: vi.fn(async () => {}),
  ensureImage: vi.fn(async () => {}),
}));

vi.mock('../runner/run.js', () => ({
  run: vi.fn(async (input: TestConfig | ResolvedRun, hooks: RunHooks): Promise<RunResult> => {
    const config = 'nodeSpecs' in input ? input.config : input;
    fake.invoked.push(config.name);
    // A workload runs only in a slot, as in the runner (taken once the cluster is ready).
    const giveBack = await hooks.workloadSlot?.(hooks.signal);
    fake.running += 1;
    fake.maxRunning = Math.max(fake.maxRunning, fake.running);
    fake.started.push(config.name);
    try {
      const dir = join(config.storeDir, config.name, 'T');
      mkdirSync(dir, { recursive: true });
      await sleep(config.timeLimitS * 1000, hooks.signal);
      if (config.seed === 13) throw new Error('client workers failed:\nworker 2 exited');
      const unsafe = config.nemesis === 'client-pause' && !config.fencing;
      const results = [
        { checker: 'mutual-exclusion', valid: !unsafe, summary: unsafe ? '2 overlapping holds' : 'no overlap' },
      ];
      // Seed 21: the machine stalls a holder in its first run only; seed 22: in every run.
      const runs = fake.invoked.filter((name) => name === config.name).length;
      const stalled = (config.seed === 21 && runs === 1) || config.seed === 22;
      const conditions = stalled
        ? [{ kind: 'machine-stall' as const, message: `the machine stalled process 0 (run ${runs})` }]
        : [];
      return { dir, config, valid: !unsafe, results, history: [], timings: { totalS: 0, clusterS: 0 }, conditions };
    } finally {
      fake.running -= 1;
      giveBack?.();
    }
  }),
}));

// The real expansion, counted: validating a campaign and running it share one.
vi.mock('./matrix.js', async (importOriginal) => {
  const matrix = await importOriginal<typeof import('./matrix.js')>();
  return { ...matrix, expandCells: vi.fn(matrix.expandCells) };
});

// The real resolution, counted: each cell's run is resolved once, as it is checked.
vi.mock('../run-data/resolve.js', async (importOriginal) => {
  const resolve = await importOriginal<typeof import('../run-data/resolve.js')>();
  return { ...resolve, resolveRun: vi.fn(resolve.resolveRun) };
});

const { campaign, runCampaign } = await import('./run.js');
const { campaignSource, loadCampaign } = await import('./load.js');
const { expandCells } = await import('./matrix.js');
const { planCampaign } = await import('./validate.js');
const { resolveRun } = await import('../run-data/resolve.js');

beforeEach(() => {
  vi.mocked(expandCells).mockClear();
  vi.mocked(resolveRun).mockClear();
  fake.running = 0;
  fake.maxRunning = 0;
  fake.invoked = [];
  fake.started = [];
});

const file = {
  name: 'fake',
  seeds: [1, 13],
  defaults: { 'time-limit': 0.05 },
  matrix: [
    {
      backend: 'redis',
      nemesis: ['none', 'client-pause'],
      fencing: ['on' as const, 'off' as const],
      expect: 'valid' as const,
      overrides: [{ when: { nemesis: 'client-pause', fencing: 'off' as const }, expect: 'invalid' as const }],
    },
  ],
};

describe('campaign() with a fake run', () => {
  it('runs k at a time; an exception is a failed cell and the campaign goes on', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const seen: string[] = [];
    const r = await campaign(file, { store, parallel: 3 }, { onCell: (c) => seen.push(c.cell.id) });
    expect(fake.maxRunning).toBe(3);
    expect(fake.started).toHaveLength(8);
    expect(seen).toHaveLength(8);
    expect(r.cells.map((c) => [c.cell.seed, c.actual, c.met])).toEqual([
      [1, 'valid', true],
      [13, 'error', false],
      [1, 'valid', true],
      [13, 'error', false],
      [1, 'valid', true],
      [13, 'error', false],
      [1, 'invalid', true],
      [13, 'error', false],
    ]);
    expect(r.cells[1]?.message).toBe('the run failed: client workers failed: / worker 2 exited');
    // The failed run's folder is found all the same.
    expect(r.cells[1]?.dir).toBe(join(r.dir, 'runs', '002-redis-lock-set-none-fenced-seed-13', 'T'));
    expect(readFileSync(join(r.dir, 'logs', '002-redis-lock-set-none-fenced-seed-13.log'), 'utf8')).toContain(
      'worker 2 exited',
    );
    expect(r.met).toBe(false);
    expect(r.interrupted).toBe(false);
    for (const f of Object.values(r.files)) expect(existsSync(f)).toBe(true);
    const xml = readFileSync(r.files.junit, 'utf8');
    expect(xml.match(/<testcase /g)).toHaveLength(8);
    expect(xml.match(/<failure /g)).toHaveLength(4);
    expect(JSON.parse(readFileSync(r.files.summaryJson, 'utf8')).totals).toEqual({
      cells: 8,
      met: 4,
      mismatched: 0,
      errors: 4,
      interrupted: 0,
    });
  });

  it('runs a cell the machine stalled once more, and says so; a second stall is an error', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const once = {
      ...file,
      seeds: [21, 22],
      matrix: [{ backend: 'redis', nemesis: ['none'], fencing: ['on' as const], expect: 'valid' as const }],
    };
    const r = await campaign(once, { store });
    expect(fake.invoked).toHaveLength(4);
    expect(r.cells.map((c) => [c.cell.seed, c.actual, c.met])).toEqual([
      [21, 'valid', true],
      [22, 'error', false],
    ]);
    expect(r.cells[0]?.message).toBe('valid as expected (run twice: the first the machine stalled process 0 (run 1))');
    expect(r.cells[1]?.message).toMatch(/^the run did not run as configured: the machine stalled process 0 \(run 2\)/);
    expect(readFileSync(join(r.dir, 'logs', '001-redis-lock-set-none-fenced-seed-21.log'), 'utf8')).toContain(
      'the machine stalled process 0 (run 1): running it once more',
    );
  });

  it('starts the next cell while one runs its workload, and runs one workload at a time', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const abort = new AbortController();
    const slow = { ...file, seeds: [1], defaults: { 'time-limit': 30 } };
    const done = campaign(slow, { store, parallel: 1, startAhead: 1 }, { signal: abort.signal });
    await sleep(300);
    // Two runs began (the second's cluster starting ahead), one workload runs.
    expect(fake.invoked).toHaveLength(2);
    expect(fake.started).toHaveLength(1);
    abort.abort();
    const r = await done;
    expect(fake.maxRunning).toBe(1);
    // The one waiting for its slot was under way: interrupted, not "never ran".
    expect(r.cells.map((c) => c.actual)).toEqual(['aborted', 'aborted', 'not-run', 'not-run']);
  });

  it('stops early by default only the cells that expect invalid; --full-time none', async () => {
    const stops = (options: Parameters<typeof planCampaign>[1]) =>
      planCampaign(campaignSource(file), options)
        .cells.filter((c) => c.config.seed === 1)
        .map((c) => [c.expect, c.config.stopOnViolation]);
    expect(stops({})).toEqual([
      ['valid', undefined],
      ['valid', undefined],
      ['valid', undefined],
      ['invalid', true],
    ]);
    expect(stops({ fullTime: true }).map(([, stop]) => stop)).toEqual([undefined, undefined, undefined, undefined]);
    expect(stops({ stopOnViolation: true }).map(([, stop]) => stop)).toEqual([true, true, true, true]);
    // A cell's own `stop-on-violation: false` wins over the default.
    const own = planCampaign(
      campaignSource({ ...file, defaults: { ...file.defaults, 'stop-on-violation': false } }),
      {},
    );
    expect(own.cells.map((c) => c.config.stopOnViolation)).not.toContain(true);
  });

  it('runs one shard into its own folder', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const r = await campaign(file, { store, shard: { index: 2, count: 3 } });
    expect(basename(r.dir)).toMatch(/-shard-2-of-3$/);
    expect(r.cells.map((c) => c.cell.index)).toEqual([1, 4, 7]);
    expect(r.totalCells).toBe(8);
    expect(existsSync(join(store, 'campaigns', 'fake', 'latest-shard-2-of-3', 'summary.json'))).toBe(true);
  });

  it('on abort, stops the runs in progress, starts no more and writes what was finished', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const abort = new AbortController();
    const slow = { ...file, seeds: [1], defaults: { 'time-limit': 30 } };
    const done = campaign(slow, { store, parallel: 2, startAhead: 0 }, { signal: abort.signal });
    await sleep(100);
    abort.abort();
    const r = await done;
    expect(fake.started).toHaveLength(2);
    expect(r.interrupted).toBe(true);
    expect(r.met).toBe(false);
    expect(r.cells.map((c) => c.actual)).toEqual(['aborted', 'aborted', 'not-run', 'not-run']);
    const xml = readFileSync(r.files.junit, 'utf8');
    expect(xml.match(/<skipped /g)).toHaveLength(4);
  });

  it('says where it is while it runs, and when cut short by a signal, names the cells that never ran', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const abort = new AbortController();
    const mid: { planned: unknown[]; notRun: { index: number }[] }[] = [];
    const fast = { ...file, seeds: [1] };
    const r = await campaign(
      fast,
      { store, startAhead: 0 },
      {
        signal: abort.signal,
        onCell: (c) => {
          // summary.json as a reader finds it after the first cell: running, 1 of 4.
          mid.push(JSON.parse(readFileSync(join(dirname(c.dir as string), '..', '..', 'summary.json'), 'utf8')));
          if (mid.length === 2) abort.abort('SIGINT');
        },
      },
    );
    expect(mid[0]).toMatchObject({ state: 'running', met: false, finishedAt: '', progress: { done: 1, total: 4 } });
    expect(mid[0]?.planned.length).toBe(4);
    // Cells end in any order: one's report may take longer than the next one's run.
    expect(mid[0]?.notRun).toHaveLength(3);
    const page = readFileSync(r.files.summaryHtml, 'utf8');
    expect(r.state).toBe('cut-short');
    expect(r.cutShortBy).toBe('SIGINT');
    const json = JSON.parse(readFileSync(r.files.summaryJson, 'utf8'));
    expect(json).toMatchObject({ state: 'cut-short', cutShortBy: 'SIGINT', interrupted: true, met: false });
    // No more started after the abort: the last cell (in file order) never ran.
    const notRun: { id: string; index: number }[] = json.notRun;
    expect(notRun.at(-1)?.id).toBe('redis/lock-set/client-pause/unfenced/seed-1');
    expect(page).toContain(
      `data-state="cut-short">cut short by SIGINT: ${notRun.length} cell${notRun.length > 1 ? 's' : ''} never ran</span>`,
    );
    expect(page).toContain('<li>#4 redis/lock-set/client-pause/unfenced/seed-1</li>');
    expect(page).not.toContain('did not meet their expectation');
    expect(readFileSync(r.files.junit, 'utf8')).toContain('<property name="state" value="cut-short"/>');
  });

  it('a running campaign page says running, not a failure', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    let page = '';
    await campaign(
      { ...file, seeds: [1] },
      { store },
      {
        onCell: (c) => {
          if (page === '') page = readFileSync(join(dirname(c.dir as string), '..', '..', 'summary.html'), 'utf8');
        },
      },
    );
    expect(page).toMatch(/data-state="running">running: 1 of 4 cells, \d+ s elapsed, about \d+ s left<\/span>/);
    expect(page).not.toContain('class="verdict bad"');
    expect(page).toContain('If it stays like this, the runner was stopped');
  });

  it('ends cut short by its time budget: runs in progress stop, no more start', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const slow = { ...file, seeds: [1], defaults: { 'time-limit': 30 } };
    const r = await campaign(slow, { store, timeBudgetS: 0.2, startAhead: 0 });
    expect(fake.started).toHaveLength(1);
    expect(r).toMatchObject({ state: 'cut-short', cutShortBy: 'its time budget of 0.2 s', met: false });
    expect(r.cells.map((c) => c.actual)).toEqual(['aborted', 'not-run', 'not-run', 'not-run']);
  });

  it('ends failed on an internal error (a hook that throws): runs in progress stop, summary.json says why', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const one = { backend: 'redis', nemesis: 'none', fencing: 'on' as const, expect: 'valid' as const };
    const two = {
      name: 'fake',
      defaults: { 'time-limit': 0.05 },
      matrix: [
        { ...one, seeds: [1] },
        { ...one, seeds: [2], options: { 'time-limit': 30 } },
      ],
    };
    const broken = () => {
      throw new TypeError('the hook broke');
    };
    await expect(campaign(two, { store, parallel: 2, startAhead: 0 }, { onCell: broken })).rejects.toThrow(
      'the hook broke',
    );
    expect(fake.running).toBe(0);
    const [stamp] = readdirSync(join(store, 'campaigns', 'fake')).filter((n) => /^\d{4}-/.test(n));
    const dir = join(store, 'campaigns', 'fake', stamp as string);
    const json = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
    expect(json).toMatchObject({ state: 'failed', failedBy: 'internal error: TypeError: the hook broke', met: false });
    // The second cell was running its 30 s workload beside the first: stopped, as by a signal.
    expect(json.cells.map((c: { actual: string }) => c.actual)).toEqual(['valid', 'aborted']);
    expect(json.finishedAt).not.toBe('');
    expect(readFileSync(join(dir, 'summary.html'), 'utf8')).toContain(
      'data-state="failed">failed: internal error: TypeError: the hook broke</span>',
    );
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain(
      '<property name="failed-by" value="internal error: TypeError: the hook broke"/>',
    );
  });

  it('expands the matrix once, from its validation to its runs, from an object, a file or a plan', async () => {
    const store = mkdtempSync(join(tmpdir(), 'lockchaos-fake-'));
    const shard = { index: 2, count: 3 };
    await campaign(file, { store, shard });
    expect(expandCells).toHaveBeenCalledTimes(1);
    const path = join(store, 'fake.yaml');
    writeFileSync(path, JSON.stringify(file)); // JSON is YAML
    await campaign(path, { store, shard });
    expect(expandCells).toHaveBeenCalledTimes(2);
    // The CLI's way: the plan it validated with its options, then run.
    vi.mocked(resolveRun).mockClear();
    const plan = await loadCampaign(path, { shard, timeLimitS: 0.01 });
    const r = await runCampaign(plan, { store });
    expect(expandCells).toHaveBeenCalledTimes(3);
    expect(r.cells.map((c) => [c.cell.index, c.cell.config.timeLimitS])).toEqual([
      [1, 0.01],
      [4, 0.01],
      [7, 0.01],
    ]);
    // Every cell of every shard resolved as it was checked, once; none again to run it.
    expect(resolveRun).toHaveBeenCalledTimes(plan.allCells.length);
  });
});
