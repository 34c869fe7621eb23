import { mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun, writeThreeNights } from '../../perf/store.js';
import { DEFAULTS } from '../run-data/config.js';
import { writeResults } from '../run-data/run-folder.js';
import { resolveInside, type StoreServer, serveStore } from './server.js';
import {
  campaignTrends,
  filterRuns,
  headFields,
  IndexCache,
  readResultsHead,
  scanStore,
  stampTime,
} from './store-index.js';
import { storePage } from './store-page.js';

const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-'));
const outside = mkdtempSync(join(tmpdir(), 'lockchaos-serve-outside-'));

beforeAll(() => {
  writeThreeNights(store);
  writeSyntheticRun(join(store, 'redlock-lock-set-client-pause-unfenced', '2026-12-01T10-00-00.000Z'), {
    backend: 'redlock',
    nemesis: 'client-pause',
    fencing: false,
    seed: 7,
    valid: false,
  });
  // A run killed before it checked: test.json only.
  const killed = join(store, 'etcd-lock-set-none-unfenced', '2026-12-01T11-00-00.000Z');
  mkdirSync(killed, { recursive: true });
  writeFileSync(
    join(killed, 'test.json'),
    JSON.stringify({ name: 'etcd-lock-set-none-unfenced', backend: 'etcd', nemesis: 'none', fencing: false, seed: 1 }),
  );
  // `latest` is a link: not listed twice.
  symlinkSync('redlock-lock-set-client-pause-unfenced/2026-12-01T10-00-00.000Z', join(store, 'latest'));
  writeFileSync(join(outside, 'secret.txt'), 'not yours\n');
  symlinkSync(outside, join(store, 'escape'));
});

afterAll(() => {
  rmSync(store, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('the store index', () => {
  it('lists every run once, newest first, with its verdict, configuration and campaign', () => {
    const index = scanStore(store);
    expect(index.problems).toEqual([]);
    expect(index.runs).toHaveLength(3 * 8 + 2);
    expect(index.runs[0]).toMatchObject({
      path: 'etcd-lock-set-none-unfenced/2026-12-01T11-00-00.000Z',
      verdict: 'none',
      backend: 'etcd',
      report: false,
    });
    expect(index.runs[1]).toMatchObject({
      verdict: 'invalid',
      backend: 'redlock',
      nemesis: 'client-pause',
      fencing: false,
      seed: 7,
      startedAt: '2026-12-01T10:00:00.000Z',
      report: true,
    });
    const inCampaign = index.runs.filter((r) => r.campaign !== undefined);
    expect(inCampaign).toHaveLength(24);
    expect(inCampaign[0]?.campaign).toBe('campaigns/nightly/2026-11-30T02-00-00.000Z');
  });

  it('lists the campaigns by night with their tallies', () => {
    const { campaigns } = scanStore(store);
    expect(campaigns.map((c) => [c.night, c.name, c.totals.met, c.totals.cells, c.met])).toEqual([
      ['2026-11-30', 'nightly', 5, 8, false],
      ['2026-11-29', 'nightly', 7, 8, false],
      ['2026-11-28', 'nightly', 7, 8, false],
    ]);
  });

  it('shows the configuration that flipped on the third night, first, and the flaky one as flaky', () => {
    const [trend] = scanStore(store).trends;
    expect(trend?.name).toBe('nightly');
    expect(trend?.nights).toEqual(['2026-11-28', '2026-11-29', '2026-11-30']);
    const rows = trend?.rows ?? [];
    expect(rows[0]).toMatchObject({ configuration: 'redis/lock-set/client-pause/unfenced', flipped: true });
    expect(rows[0]?.marks.map((m) => m.mark)).toEqual(['met', 'met', 'not-met']);
    const redlock = rows.find((r) => r.configuration === 'redlock/lock-set/client-pause/unfenced');
    expect(redlock?.marks.map((m) => m.mark)).toEqual(['flaky', 'flaky', 'flaky']);
    expect(redlock).toMatchObject({ flipped: false, flaky: true });
    const steady = rows.filter((r) => !r.flipped && !r.flaky);
    expect(steady.map((r) => r.marks.map((m) => m.mark).join(','))).toEqual(['met,met,met', 'met,met,met']);
  });

  it('adds up the shards of one night, and marks a night a configuration did not run', () => {
    const c = (night: string, met: number, ran: number, shard?: string) => ({
      path: `campaigns/n/${night}${shard ?? ''}`,
      name: 'n',
      startedAt: `${night}T02:00:00.000Z`,
      night,
      ...(shard ? { shard } : {}),
      totals: { cells: ran, met, mismatched: ran - met, errors: 0, interrupted: 0 },
      interrupted: false,
      state: 'finished' as const,
      notRun: [],
      met: met === ran,
      configurations: ran ? [{ configuration: 'x', expect: 'valid', met, ran }] : [],
      summaryHtml: true,
    });
    const [trend] = campaignTrends([
      c('2026-11-01', 1, 1, '1/2'),
      c('2026-11-01', 0, 1, '2/2'),
      c('2026-11-02', 0, 0),
      c('2026-11-03', 2, 2),
    ]);
    expect(trend?.rows[0]?.marks.map((m) => `${m.mark} ${m.met}/${m.ran}`)).toEqual([
      'flaky 1/2',
      'not-run 0/0',
      'met 2/2',
    ]);
    expect(trend?.rows[0]?.flipped).toBe(true);
  });

  it('counts a night whose shards were merged once: the merge alone', () => {
    const c = (path: string, met: number, ran: number, extra: { shard?: string; merged?: boolean }) => ({
      path,
      name: 'n',
      startedAt: '2026-11-01T02:00:00.000Z',
      night: '2026-11-01',
      ...extra,
      totals: { cells: ran, met, mismatched: ran - met, errors: 0, interrupted: 0 },
      interrupted: false,
      state: 'finished' as const,
      notRun: [],
      met: met === ran,
      configurations: [{ configuration: 'x', expect: 'valid', met, ran }],
      summaryHtml: true,
    });
    const [trend] = campaignTrends([
      c('a', 1, 1, { shard: '1/2' }),
      c('b', 1, 1, { shard: '2/2' }),
      c('c', 2, 2, { merged: true }),
    ]);
    expect(trend?.rows[0]?.marks.map((m) => `${m.mark} ${m.met}/${m.ran}`)).toEqual(['met 2/2']);
  });

  it('filters runs by verdict, backend, nemesis, fencing, seed and name', () => {
    const { runs } = scanStore(store);
    expect(filterRuns(runs, { verdict: 'invalid', backend: 'redlock' }).length).toBe(1 + 3);
    expect(filterRuns(runs, { fencing: 'on' }).every((r) => r.fencing)).toBe(true);
    expect(filterRuns(runs, { fencing: 'on' })).toHaveLength(6);
    expect(filterRuns(runs, { seed: '7' }).map((r) => r.backend)).toEqual(['redlock']);
    expect(filterRuns(runs, { nemesis: 'none', text: 'ETCD' })).toHaveLength(1);
  });

  it('rereads only what changed: a cached run is the same object until its folder changes', () => {
    const own = mkdtempSync(join(tmpdir(), 'lockchaos-serve-cache-'));
    try {
      const dir = join(own, 'redis-lock-set-none-unfenced', '2026-12-01T10-00-00.000Z');
      writeSyntheticRun(dir, { backend: 'redis', nemesis: 'none', fencing: false, seed: 3, valid: true });
      const cache = new IndexCache();
      const first = scanStore(own, cache);
      expect(scanStore(own, cache).runs[0]).toBe(first.runs[0]);
      writeFileSync(
        join(dir, 'results.json'),
        JSON.stringify({ valid: 'unknown', conditions: [{ kind: 'x', message: 'lost a worker' }], results: [] }),
      );
      utimesSync(dir, new Date(), new Date(Date.now() + 5000));
      expect(scanStore(own, cache).runs[0]).toMatchObject({ verdict: 'unknown', conditions: ['lost a worker'] });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});

describe('reading the head of results.json', () => {
  it('takes the fields from the start, and leaves out one cut off', () => {
    const text = JSON.stringify(
      { lockchaos: '0.1.0', schema: 1, valid: false, conditions: [{ kind: 'a,b' }], config: { x: '}' } },
      null,
      2,
    );
    expect(headFields(text, ['valid', 'conditions'])).toEqual({ valid: false, conditions: [{ kind: 'a,b' }] });
    expect(headFields(text.slice(0, text.indexOf('"kind"')), ['valid', 'conditions'])).toEqual({ valid: false });
    expect(headFields('{"a":"x\\"y","valid":"unknown"}', ['valid'])).toEqual({ valid: 'unknown' });
  });

  it('takes the configuration from the head of results.json, or leaves it to test.json when cut', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-serve-head-'));
    try {
      const write = (config: Record<string, unknown>) => {
        const path = join(dir, 'results.json');
        const details = 'x'.repeat(50_000);
        writeFileSync(
          path,
          JSON.stringify(
            { lockchaos: '0.1.0', schema: 1, valid: false, conditions: [], config, results: [{ details }] },
            null,
            2,
          ),
        );
        return readResultsHead(path);
      };
      const base = {
        name: 'n',
        backend: 'redis',
        workload: 'lock-set',
        nemesis: 'client-pause',
        fencing: true,
        seed: 4,
      };
      expect(write(base)).toEqual({ verdict: 'invalid', conditions: [], config: base });
      // A schedule too long for the head: the fields before it are enough with the scenario named ...
      const schedule = Array.from({ length: 200 }, (_, k) => ({
        kind: 'client-pause',
        atMs: k * 100,
        durationMs: 1500,
      }));
      expect(write({ ...base, scenario: 'gc-pause', schedule }).config).toEqual({ ...base, scenario: 'gc-pause' });
      // ... but without one, its absence cannot be told from the cut: test.json is read.
      expect(write({ ...base, schedule }).config).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the head writeResults writes: verdict, conditions and configuration within the first 8 kB', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-serve-written-'));
    try {
      const config = { ...DEFAULTS, name: 'n', backend: 'redis', nemesis: 'client-pause', fencing: true, seed: 4 };
      const lost = { kind: 'worker-lost' as const, message: 'client worker 1 lost at 3 s' };
      writeResults(dir, {
        valid: false,
        conditions: [lost],
        config,
        timings: { totalS: 20, clusterS: 1 },
        results: [
          {
            checker: 'mutual-exclusion',
            valid: false,
            counts: true,
            summary: 's',
            details: { pad: 'x'.repeat(50_000) },
          },
        ],
      });
      // Only the head is there: read from it, not from the whole file (which no longer parses).
      const path = join(dir, 'results.json');
      truncateSync(path, 8192);
      expect(readResultsHead(path)).toEqual({
        verdict: 'invalid',
        conditions: [lost.message],
        config,
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads folder names made of times', () => {
    expect(stampTime('2026-12-02T05-39-51.522Z')).toBe('2026-12-02T05:39:51.522Z');
    expect(stampTime('2026-12-02T05-39-51.522Z-shard-1-of-2')).toBe('2026-12-02T05:39:51.522Z');
    expect(stampTime('latest')).toBe('');
  });
});

describe('the page', () => {
  it('draws the flip on its row, the marks night by night, and a link to every report', () => {
    const index = scanStore(store);
    const html = storePage(index, { verdict: 'invalid' }, '0.1.0');
    const row =
      /<tr data-configuration="redis\/lock-set\/client-pause\/unfenced" class="flipped[^"]*">(.*?)<\/tr>/s.exec(html);
    expect(row?.[1]).toMatch(/data-mark="met".*data-mark="met".*data-mark="not-met"/s);
    expect(html).toContain('href="/files/redlock-lock-set-client-pause-unfenced/2026-12-01T10-00-00.000Z/report.html"');
    expect(html).toContain('href="/files/campaigns/nightly/2026-11-30T02-00-00.000Z/summary.html"');
    expect(html).toMatch(/id="runs-count">\d+ of 26 runs/);
    expect(html).not.toContain('data-verdict="valid"');
  });
});

describe("a mark's runs, and the run list's expectation", () => {
  it("links each mark to that night's runs of its configuration, which the filter then lists", () => {
    const index = scanStore(store);
    const html = storePage(index, {}, '0.1.0');
    const row =
      /<tr data-configuration="redis\/lock-set\/client-pause\/unfenced"[^>]*>(.*?)<\/tr>/s.exec(html)?.[1] ?? '';
    const links = [...row.matchAll(/<a href="([^"]+)">/g)].map((m) => (m[1] as string).replace(/&amp;/g, '&'));
    expect(links).toHaveLength(3);
    const last = new URL(links[2] as string, 'http://x');
    expect(Object.fromEntries(last.searchParams)).toEqual({
      campaign: 'nightly',
      configuration: 'redis/lock-set/client-pause/unfenced',
      night: '2026-11-30',
    });
    expect(last.hash).toBe('#runs');
    const runs = filterRuns(index.runs, Object.fromEntries(last.searchParams));
    expect(runs.map((r) => [r.seed, r.night, r.verdict])).toEqual([
      [1, '2026-11-30', 'valid'],
      [2, '2026-11-30', 'valid'],
    ]);
    // The filtered page keeps the mark's filter through the form, and says what it shows.
    const filtered = storePage(index, Object.fromEntries(last.searchParams), '0.1.0');
    expect(filtered).toContain('<input type="hidden" name="night" value="2026-11-30">');
    expect(filtered).toContain('id="cell-filter">Runs of nightly · redis/lock-set/client-pause/unfenced · 2026-11-30');
  });

  it('shows each campaign run against its expectation: an expected INVALID is met, a missed one is not', () => {
    const html = storePage(scanStore(store), {}, '0.1.0');
    expect(html).toContain('<th>expected</th><th>met</th>');
    const cells = (path: string) =>
      new RegExp(`<tr data-run="${path}/[^"]*"[^>]*>(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    const caught = cells(
      'campaigns/nightly/2026-11-28T02-00-00.000Z/runs/005-redis-lock-set-client-pause-unfenced-seed-1',
    );
    expect(caught).toContain('INVALID');
    expect(caught).toContain('<td class="expected">invalid</td><td class="met-cell met">✓ met</td>');
    const missed = cells(
      'campaigns/nightly/2026-11-30T02-00-00.000Z/runs/005-redis-lock-set-client-pause-unfenced-seed-1',
    );
    expect(missed).toContain('<td class="expected">invalid</td><td class="met-cell not-met">✗ not met</td>');
    // A run of no campaign has neither.
    expect(cells('redlock-lock-set-client-pause-unfenced')).toContain(
      '<td class="expected"></td><td class="met-cell"></td>',
    );
  });
});

describe('the server', () => {
  let served: StoreServer;
  beforeAll(async () => {
    served = await serveStore(store, 0);
  });
  afterAll(() => served.close());

  it('listens on 127.0.0.1 only and serves the page, the index and the store files', async () => {
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect((await fetch(served.url)).status).toBe(200);
    const index = (await (await fetch(new URL('/index.json?backend=redlock', served.url))).json()) as {
      lockchaos: string;
      schema: number;
      runs: unknown[];
    };
    expect(index.schema).toBe(1);
    expect(index.runs).toHaveLength(7);
    const report = await fetch(new URL('/files/latest/report.html', served.url));
    expect(report.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await report.text()).toContain('INVALID');
    expect(await (await fetch(new URL('/files/campaigns/', served.url))).text()).toContain('nightly/');
    // A folder with a space in its name: listed and linked once encoded, and served.
    mkdirSync(join(store, 'odd name'), { recursive: true });
    writeFileSync(join(store, 'odd name', 'a b.txt'), 'hello\n');
    expect(await (await fetch(new URL('/files/', served.url))).text()).toContain('href="/files/odd%20name/"');
    expect(await (await fetch(new URL('/files/odd%20name/', served.url))).text()).toContain(
      'href="/files/odd%20name/a%20b.txt"',
    );
    expect(await (await fetch(new URL('/files/odd%20name/a%20b.txt', served.url))).text()).toBe('hello\n');
  });

  /** A GET with the Host header given (fetch sets its own). */
  const get = (path: string, host: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      const url = new URL(path, served.url);
      const req = request({ host: '127.0.0.1', port: url.port, path, headers: { host } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('answers only a Host that is its own address, refusing others in one line (DNS rebinding)', async () => {
    const port = new URL(served.url).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      expect((await get('/', host)).status, host).toBe(200);
    }
    for (const path of ['/', '/index.json', '/files/latest/report.html']) {
      const refused = await get(path, `attacker.example:${port}`);
      expect(refused.status).toBe(421);
      expect(refused.body).toMatch(
        /^Host "attacker\.example:\d+" is not this server: open http:\/\/127\.0\.0\.1:\d+\/ .*\n$/,
      );
      expect(refused.body.trimEnd()).not.toContain('\n');
    }
  });

  it('sends a Content-Security-Policy: no script on its own pages, stored pages sandboxed', async () => {
    const page = await fetch(served.url);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'none';/);
    const listing = await fetch(new URL('/files/campaigns/', served.url));
    expect(listing.headers.get('content-security-policy')).toContain("script-src 'none'");
    const stored = await fetch(new URL('/files/latest/report.html', served.url));
    expect(stored.headers.get('content-security-policy')).toMatch(/^sandbox allow-scripts; default-src 'none';/);
  });

  it('serves nothing outside the store: .., encoded .., absolute paths and links that lead out', async () => {
    const root = (await import('node:fs')).realpathSync(store);
    expect(resolveInside(root, '../x')).toBeUndefined();
    expect(resolveInside(root, '%2e%2e/%2e%2e/etc/passwd')).toBeUndefined();
    expect(resolveInside(root, 'a%2f..%2f..%2fetc')).toBeUndefined();
    expect(resolveInside(root, 'escape/secret.txt')).toBeUndefined();
    expect(resolveInside(root, 'x%00')).toBeUndefined();
    for (const path of ['/files/../etc/passwd', '/files/%2e%2e/%2e%2e/etc/passwd', '/files/escape/secret.txt']) {
      const res = await fetch(new URL(path, served.url));
      expect([404, 400]).toContain(res.status);
      expect(await res.text()).not.toContain('not yours');
    }
  });
});
