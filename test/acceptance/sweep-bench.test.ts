/**
 * A tiny real sweep (redis, unfenced, pauses of 0.25 and 2 TTLs, one trial each) and a
 * tiny real bench (redis, 2 clients): their tables, sweep.json and bench.json, and both
 * pages opened in a real headless browser with no console errors. About 80 s.
 *
 * The sweep's runs last 8 s, so that each has two pauses: a pause can catch its client in
 * the middle of a release (picked as the holder, the release already on its way), and with
 * one pause a run then has no pause of a holder at all (CI saw it once in many runs).
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeBrowser, noBrowser, openPage } from '../integration/browser.js';
import { leftovers, lockchaos, requireEngine } from '../integration/support.js';

const skip = await requireEngine();
const store = mkdtempSync(join(tmpdir(), 'lockchaos-sweep-store-'));

/** The one campaign folder of `name` in the store. */
function campaignDir(name: string): string {
  const parent = join(store, 'campaigns', name);
  const [stamp] = readdirSync(parent);
  return join(parent, stamp as string);
}

afterAll(closeBrowser);

describe.skipIf(skip)('lockchaos sweep and bench, on real servers', () => {
  it('sweep: no two holders at 0.25 TTL, two holders at 2 TTLs, the formula beside them', async () => {
    const r = await lockchaos([
      'sweep',
      ...['--backend', 'redis', '--fencing', 'off', '--pause-ttl', '0.25,2', '--trials', '1'],
      ...['--time-limit', '8', '--nemesis-interval', '1.5', '--store', store, '--no-latest'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
    const dir = campaignDir('sweep-redis-unfenced');
    const sweep = JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
    const [short, long] = sweep.points;
    expect(short).toMatchObject({ pauseTtl: 0.25, observed: { k: 0, n: 1 }, predicted: { p: 0 } });
    expect(short.pauses.n).toBeGreaterThan(0);
    // Pauses as applied: a quarter of the TTL, give or take the signals' delivery.
    expect(short.pauses.measuredMs.median).toBeGreaterThanOrEqual(250);
    expect(short.pauses.measuredMs.median).toBeLessThan(400);
    expect(long).toMatchObject({ pauseTtl: 2, observed: { k: 1, n: 1 }, predicted: { p: 1 } });
    expect(r.stdout).toMatch(/^pause\/TTL\s+TTL\s+clients\s+two holders/m);
    if (!noBrowser) {
      const { page, problems } = await openPage(join(dir, 'sweep.html'));
      expect(await page.locator('#plots canvas').count()).toBe(1);
      expect(await page.locator('#points tbody tr').count()).toBe(2);
      expect(problems).toEqual([]);
    }
  });

  it('bench: tail latencies with their counts, handoffs, fairness', async () => {
    const r = await lockchaos([
      'bench',
      ...['--backend', 'redis', '--concurrency', '2', '--jitter', '25', '--time-limit', '3'],
      ...['--store', store, '--no-latest'],
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
    expect(r.stdout).toMatch(/ranking by p99 acquire latency at 2 clients \(jitter 25 ms\):\n {2}1\. redis {2}p99 /);
    const bench = JSON.parse(readFileSync(join(campaignDir('bench'), 'bench.json'), 'utf8'));
    expect(bench.points).toHaveLength(1);
    for (const p of bench.points) {
      expect(p.grants).toBeGreaterThan(50);
      expect(p.failed).toBe(0);
      expect(p.latencyMs.map((q: { q: number }) => q.q)).toEqual([0.5, 0.99, 0.999, 0.9999]);
      expect(p.latencyMs[3]).toMatchObject({ n: p.grants, meaningful: false });
    }
    expect(bench.points[0].fairness).toBeGreaterThan(0.5);
    expect(bench.points[0].fairness).toBeLessThanOrEqual(1);
    if (!noBrowser) {
      const { page, problems } = await openPage(join(campaignDir('bench'), 'bench.html'));
      expect(await page.locator('#plots canvas').count()).toBe(2);
      expect(await page.locator('#ranking tbody tr').count()).toBe(1);
      expect(problems).toEqual([]);
    }
  });
});
