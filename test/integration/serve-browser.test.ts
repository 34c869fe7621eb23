/**
 * `lockchaos serve` in a real browser (Debian's chromium through playwright-core), over a
 * synthetic store of three nights of one campaign (no Docker): the flip shows on its row,
 * and the failing run's report is one filter and one click away. The server is the CLI's,
 * started as a user starts it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun, writeThreeNights } from '../../bench/store.js';
import { packageRoot } from '../../src/util/paths.js';
import { closeBrowser, noBrowser, openUrl } from './browser.js';

const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-browser-'));
const artifacts = join(packageRoot, 'test-artifacts');
let server: ChildProcess | undefined;
let url = '';

beforeAll(async () => {
  writeThreeNights(store);
  writeSyntheticRun(join(store, 'redis-lock-set-none-fenced', '2026-12-01T10-00-00.000Z'), {
    backend: 'redis',
    nemesis: 'none',
    fencing: true,
    seed: 4,
    valid: true,
  });
  server = spawn(
    process.execPath,
    [join(packageRoot, 'dist/src/cli/main.js'), 'serve', '--store', store, '--port', '0'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server?.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /on (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    server?.on('exit', (code) => reject(new Error(`lockchaos serve exited ${code}: ${out}`)));
  });
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
