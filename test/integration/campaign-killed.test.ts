/**
 * A real campaign, seen from outside while it runs and after its runner is killed with
 * SIGKILL (as a CI job's hard stop kills it: no handler runs, summary.json still says
 * "running"): `lockchaos serve`, in a real browser, first says running with its progress,
 * then cut short with the cells that never ran, on its page and in the summary.html it
 * serves. Three cells: the first of 2 s, and two of 15 s, so that the campaign is still
 * running when the runner is killed, once a cell has finished (with 2 s each, a campaign
 * whose next cell was started ahead finished while the page was read). The cluster started
 * ahead may be ready first and take the slot before the first cell: then the first cell to
 * finish is a 15 s one, and 17 s of cells are still to run (with 60 s cells, that order
 * made the test wait a minute).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sleep } from '../../src/util/monotonic-clock.js';
import { closeBrowser, noBrowser, openUrl } from './browser.js';
import { CLI, leftovers, lockchaos, requireEngine } from './support.js';

const skip = (await requireEngine()) ?? noBrowser;
const work = mkdtempSync(join(tmpdir(), 'lockchaos-killed-'));
const store = join(work, 'store');
const file = join(work, 'three.yaml');
writeFileSync(
  file,
  `name: three
defaults: { time-limit: 2 }
matrix:
  - backend: redis
    nemesis: none
    fencing: on
    seeds: [1]
    expect: valid
  - backend: redis
    nemesis: none
    fencing: on
    seeds: [2, 3]
    options: { time-limit: 15 }
    expect: valid
`,
);

const children: ChildProcess[] = [];
afterAll(async () => {
  await closeBrowser();
  for (const c of children) c.kill('SIGTERM');
});

/** The campaign's summary.json once it exists and `ready` holds for it (read again every 200 ms). */
async function summaryWhen(ready: (s: { progress?: { done: number } }) => boolean) {
  for (;;) {
    const parent = join(store, 'campaigns', 'three');
    const dir = existsSync(parent) ? readdirSync(parent).find((d) => d !== 'latest') : undefined;
    const path = dir && join(parent, dir, 'summary.json');
    if (path && existsSync(path)) {
      const s = JSON.parse(readFileSync(path, 'utf8'));
      if (ready(s)) return { dir: `campaigns/three/${dir}`, summary: s };
    }
    await sleep(200);
  }
}

function startServe(): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'serve', '--store', store, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.on('exit', (code) => reject(new Error(`lockchaos serve exited ${code}: ${out}`)));
  });
}

describe.skipIf(skip)('a campaign killed mid-way', () => {
  it('shows as running while it runs, then as cut short with the cells that never ran', async () => {
    const runner = spawn(process.execPath, [CLI, 'campaign', file, '--store', store], { stdio: 'ignore' });
    children.push(runner);
    const exited = new Promise((resolve) => runner.on('exit', resolve));
    const { dir } = await summaryWhen((s) => (s.progress?.done ?? 0) >= 1);
    const url = await startServe();
    const origin = new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`);

    // Running: the page's row and the campaign's own page (the file as written).
    const running = await openUrl(url, origin);
    const row = running.page.locator(`#campaigns tr[data-campaign="${dir}"]`);
    expect(await row.getAttribute('data-state')).toBe('running');
    expect(await row.textContent()).toMatch(/running: [12] of 3 cells, \d+ s elapsed/);
    await running.page.goto(`${url}files/${dir}/summary.html`);
    await running.page.waitForSelector('body');
    expect(await running.page.getAttribute('#state', 'data-state')).toBe('running');
    expect(await running.page.textContent('#state')).toMatch(/^running: [12] of 3 cells/);

    runner.kill('SIGKILL');
    await exited;
    const { summary } = await summaryWhen(() => true);
    expect(summary.state).toBe('running'); // what the killed runner left on disk

    const killed = await openUrl(url, origin);
    const after = killed.page.locator(`#campaigns tr[data-campaign="${dir}"]`);
    expect(await after.getAttribute('data-state')).toBe('cut-short');
    expect(await after.textContent()).toContain('cut short by its runner stopped without finishing (killed?)');
    const neverRan = await after.locator('details.never-ran li').allTextContents();
    expect(neverRan.length).toBeGreaterThanOrEqual(1);
    expect(neverRan.at(-1)).toBe('#3 redis/lock-set/none/fenced/seed-3');
    await killed.page.goto(`${url}files/${dir}/summary.html`);
    await killed.page.waitForSelector('body');
    expect(await killed.page.getAttribute('#state', 'data-state')).toBe('cut-short');
    expect(await killed.page.locator('#never-ran li').allTextContents()).toEqual(neverRan);
    expect([...running.problems, ...killed.problems]).toEqual([]);

    // The killed runner's containers are left for cleanup, as after any crash.
    const swept = await lockchaos(['cleanup']);
    expect(swept.code).toBe(0);
    expect(await leftovers(runner.pid)).toEqual([]);
  });
});
