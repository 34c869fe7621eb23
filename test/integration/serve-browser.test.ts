/**
 * `lockchaos serve` in a real browser (Debian's chromium through playwright-core), over a
 * synthetic store of three nights of one campaign (no Docker): the flip shows on its row,
 * and the failing run's report is one filter and one click away. The server is the CLI's,
 * started as a user starts it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun, writeThreeNights } from '../../perf/store.js';
import { packageRoot } from '../../src/util/paths.js';
import { closeBrowser, noBrowser, openUrl } from './browser.js';

const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-browser-'));
const artifacts = join(packageRoot, 'test-artifacts');
let server: ChildProcess | undefined;
let url = '';

/** `lockchaos serve` of `dir` on a free port, as a user starts it; resolves to its URL. */
function startServe(dir: string): Promise<{ server: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(packageRoot, 'dist/src/cli/main.js'), 'serve', '--store', dir, '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve({ server: child, url: m[1] as string });
    });
    child.on('exit', (code) => reject(new Error(`lockchaos serve exited ${code}: ${out}`)));
  });
}

beforeAll(async () => {
  writeThreeNights(store);
  writeSyntheticRun(join(store, 'redis-lock-set-none-fenced', '2026-12-01T10-00-00.000Z'), {
    backend: 'redis',
    nemesis: 'none',
    fencing: true,
    seed: 4,
    valid: true,
  });
  ({ server, url } = await startServe(store));
});

afterAll(async () => {
  await closeBrowser();
  server?.kill('SIGTERM');
  rmSync(store, { recursive: true, force: true });
});

describe.skipIf(noBrowser)('lockchaos serve, in a browser', () => {
  it('shows the flip on its row and clicks through to the failing run report', async () => {
    const origin = new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
    const { page, problems } = await openUrl(url, origin);
    // Three nights of the campaign, each with its tally.
    expect(await page.locator('#campaigns tbody tr').count()).toBe(3);
    expect(await page.textContent('#campaigns tbody tr:first-child')).toContain('met 5 of 8');
    // The configuration that flipped on the third night: first, marked, ● ● ✕.
    const flipped = page.locator('table.trend tbody tr').first();
    expect(await flipped.getAttribute('data-configuration')).toBe('redis/lock-set/client-pause/unfenced');
    expect(await flipped.getAttribute('class')).toContain('flipped');
    expect(await flipped.locator('td.mark').evaluateAll((tds) => tds.map((td) => td.textContent))).toEqual([
      '●',
      '●',
      '✕',
    ]);
    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, 'serve.png'), fullPage: true });

    // The flip's mark opens that night's runs of the configuration, each with its expectation and whether it met it.
    await Promise.all([page.waitForURL(/night=2026-11-30/), flipped.locator('td.mark a').last().click()]);
    const markRuns = page.locator('#runs tbody tr');
    expect(await markRuns.count()).toBe(2);
    expect(await markRuns.locator('td.met-cell').allTextContents()).toEqual(['✗ not met', '✗ not met']);
    await page.goto(url);

    // Filter the runs to the invalid redis ones without fencing, then open the newest one's report.
    await page.selectOption('select[name=verdict]', 'invalid');
    await page.selectOption('select[name=backend]', 'redis');
    await page.selectOption('select[name=fencing]', 'off');
    await Promise.all([page.waitForURL(/verdict=invalid/), page.click('form.filter button[type=submit]')]);
    const rows = page.locator('#runs tbody tr');
    expect(await rows.count()).toBe(4); // 2 seeds × the two nights it was caught
    expect(await rows.evaluateAll((trs) => trs.every((tr) => tr.getAttribute('data-verdict') === 'invalid'))).toBe(
      true,
    );
    await Promise.all([page.waitForURL(/report\.html$/), rows.first().locator('a.report').click()]);
    expect(page.url()).toContain('/files/campaigns/nightly/2026-11-29T02-00-00.000Z/runs/');
    expect(await page.textContent('#verdict')).toBe('INVALID');
    expect(problems).toEqual([]);
  });
});

/**
 * A store someone else made (a fork's CI artifacts): every string the index shows of a
 * campaign and a run, and every number, is markup that would run script.
 */
function writeHostileStore(dir: string): void {
  const js = (n: number) => `window.__pwned=${n};document.title='pwned'`;
  const payloads = [
    `<script>${js(1)}</script>`,
    `<img src=x onerror="${js(2)}">`,
    `"><img src=x onerror="${js(3)}">`,
    `'><svg onload="${js(4)}">`,
  ];
  const p = (i: number) => payloads[i % payloads.length] as string;
  // A summary the reader takes (campaign-data/read-summary.ts): markup only where a string may be anything.
  const cut = join(dir, 'campaigns', 'nightly', '2026-11-27T02-00-00.000Z');
  mkdirSync(cut, { recursive: true });
  const cell = (index: number) => ({
    index,
    entry: 0,
    id: p(index),
    backend: p(1),
    workload: p(2),
    nemesis: p(3),
    fencing: false,
    seed: 1,
    expect: 'valid',
    config: {},
    actual: 'valid',
    met: true,
    message: p(0),
    durationS: 1,
    dir: `runs/${index}`,
  });
  writeFileSync(
    join(cut, 'summary.json'),
    JSON.stringify({
      name: 'nightly',
      description: p(1),
      source: p(2),
      shard: null,
      totalCells: 3,
      startedAt: '2026-11-27T02:00:00.000Z',
      finishedAt: '2026-11-27T02:10:00.000Z',
      interrupted: true,
      state: 'cut-short',
      cutShortBy: p(0),
      cells: [cell(0), cell(1)],
      planned: [0, 1, 2].map((index) => ({ index, id: p(index + 1) })),
    }),
  );
  // One it refuses (its name is markup, its numbers are not numbers): a problem the page names.
  const campaign = join(dir, 'campaigns', 'nightly', '2026-11-28T02-00-00.000Z');
  mkdirSync(campaign, { recursive: true });
  writeFileSync(
    join(campaign, 'summary.json'),
    JSON.stringify({
      name: p(0),
      startedAt: `2026-11-28${p(1)}`,
      shard: { index: p(2), count: p(3) },
      totals: { cells: p(0), met: p(1), mismatched: p(2), errors: p(3), interrupted: p(0) },
      interrupted: p(1),
      met: p(2),
      missing: 1,
      configurations: [{ configuration: p(3), expect: p(0), met: p(1), ran: p(2) }],
      cells: [{ dir: p(3) }],
    }),
  );
  const run = join(dir, 'x', '2026-11-28T03-00-00.000Z');
  mkdirSync(run, { recursive: true });
  const config = {
    name: p(0),
    backend: p(1),
    workload: p(2),
    nemesis: p(3),
    scenario: p(0),
    fencing: p(1),
    seed: p(2),
  };
  writeFileSync(join(run, 'test.json'), JSON.stringify(config));
  writeFileSync(join(run, 'results.json'), JSON.stringify({ valid: p(3), conditions: [{ message: p(0) }], config }));
  // A folder that cannot be read as a campaign: its error is shown too.
  const broken = join(dir, 'campaigns', 'broken', p(1).replace(/\//g, ''));
  mkdirSync(broken, { recursive: true });
  writeFileSync(join(broken, 'summary.json'), `{${p(2)}`);
}

describe.skipIf(noBrowser)('lockchaos serve, of a hostile store, in a browser', () => {
  const hostile = mkdtempSync(join(tmpdir(), 'lockchaos-serve-hostile-'));
  let hostileServer: ChildProcess | undefined;
  afterAll(() => {
    hostileServer?.kill('SIGTERM');
    rmSync(hostile, { recursive: true, force: true });
  });

  it('runs no script from the store and sends a Content-Security-Policy', async () => {
    writeHostileStore(hostile);
    const started = await startServe(hostile);
    hostileServer = started.server;
    const res = await fetch(started.url);
    expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none'; script-src 'none';/);
    const origin = new RegExp(`^${started.url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);
    const { page, problems } = await openUrl(started.url, origin);
    // The payloads are on the page as text, and none of them ran.
    expect(await page.textContent('#campaigns')).toContain('<script>');
    expect(await page.textContent('body')).toContain('summary.json is not a campaign summary');
    expect(await page.textContent('#runs')).toContain('onerror');
    expect(await page.locator('#campaigns img, #runs img, body script, body svg').count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(await page.title()).toMatch(/^lockchaos store: /);
    expect(problems).toEqual([]);
  });
});
