/**
 * report.html in a real browser (Debian's chromium through playwright-core), on a real
 * failing run; and `lockchaos report` on a run cut short mid-line. Under CI=true a missing
 * chromium (like a missing engine) is a failure, never a skip.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/run-data/config.js';
import { packageRoot } from '../../src/util/paths.js';
import { closeBrowser, noBrowser, openPage as open } from './browser.js';
import { lockchaos, requireEngine, runAndRead } from './support.js';

const skip = await requireEngine();

const store = mkdtempSync(join(tmpdir(), 'lockchaos-report-store-'));
const artifacts = join(packageRoot, 'test-artifacts');

afterAll(closeBrowser);

/**
 * The two runs the reports are drawn from, started at once in the first beforeAll (each
 * with a cluster of its own: neither verdict depends on the machine's speed).
 */
let bothRuns: Promise<[string, string]> | undefined;
function runs(): Promise<[string, string]> {
  bothRuns ??= Promise.all([
    runAndRead(join(store, 'failing'), [
      ...['--backend', 'redlock', '--workload', 'lock-set', '--nemesis', 'client-pause', '--fencing', 'off'],
      ...['--time-limit', '15', '--nemesis-interval', '2', '--seed', '3'],
    ]).then((r) => {
      expect(r.code, r.stderr).toBe(1);
      return r.dir;
    }),
    // gc-pause with fencing, seed 1: the store turns paused holders' stale writes away.
    runAndRead(join(store, 'fenced'), [
      '--scenario',
      'gc-pause',
      '--fencing',
      'on',
      '--time-limit',
      '20',
      '--seed',
      '1',
    ]).then((r) => {
      expect(r.code, r.stderr).toBe(0);
      return r.dir;
    }),
  ]);
  return bothRuns;
}

describe.skipIf(skip)('the run report, on a real failing run', () => {
  let dir = '';

  beforeAll(async () => {
    [dir] = await runs();
  }, 300_000);

  it('writes report.html and junit.xml into the run folder', () => {
    expect(existsSync(join(dir, 'report.html'))).toBe(true);
    const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase name="mutual-exclusion" classname="redlock-lock-set-client-pause-unfenced"/);
    expect(junit).toContain(`(report: ${join(dir, 'report.html')})`);
    expect(junit).toMatch(/<testcase name="fencing"[^>]*>\s*<system-out>not counted toward the verdict/);
  });

  it.skipIf(noBrowser)(
    'renders the timeline and the highlighted violation, scrolled into view, with no errors',
    async () => {
      const { page, problems } = await open(join(dir, 'report.html'));
      expect(await page.textContent('#verdict')).toBe('INVALID');
      // The first line says it: who paused, for how long, under which fault, and what the data lost.
      expect(await page.textContent('#headline')).toMatch(
        /^Process \d+ paused for [\d.]+ m?s \(client-pause\) outlived its lease; process \d+ acquired; (\d+ acknowledged adds? lost|no acknowledged add lost)\.$/,
      );
      expect(await page.locator('#violation').getAttribute('data-style')).toBe('counted');
      // The timeline: a lane per client process, operations drawn as bars, lock holds.
      expect(await page.locator('#timeline .lane-label').count()).toBeGreaterThanOrEqual(5);
      expect(await page.locator('#timeline .op').count()).toBeGreaterThan(0);
      expect(await page.locator('#timeline .hold').count()).toBeGreaterThan(0);
      // The violation: the two overlapping holders, their ops outlined and numbered.
      const violation = page.locator('#violation');
      expect(await violation.getAttribute('data-violation')).toBe('mutual-exclusion');
      expect(await violation.getAttribute('data-kind')).toBe('overlap');
      expect(await page.locator('#violation .violating-hold').count()).toBe(2);
      expect(await page.locator('#violation .mark').count()).toBeGreaterThanOrEqual(2);
      expect(await page.locator('#focus-marks li').count()).toBeGreaterThanOrEqual(2);
      const box = await violation.evaluate((g) => {
        const r = g.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, width: r.width, height: window.innerHeight };
      });
      expect(box.width).toBeGreaterThan(0);
      expect(box.top).toBeGreaterThanOrEqual(0);
      expect(box.bottom).toBeLessThanOrEqual(box.height);
      // The latency plot (uPlot) and the checkers table.
      expect(await page.locator('#latency .uplot canvas').count()).toBeGreaterThan(0);
      expect(await page.locator('#checkers tbody tr').count()).toBe(7); // 3 data checkers, 2 linearizability, evidence, perf
      // perf: the grants in and out of the client pauses.
      expect(await page.textContent('#perf tr[data-perf="acquire:during"]')).toMatch(/^during faults \(/);
      expect(await page.locator('#perf tr[data-perf="acquire:outside"]').count()).toBe(1);
      // From the page's own folder: the page is read wherever it was copied to.
      expect(await page.textContent('#rerun-replay')).toBe('lockchaos run --replay test.json');
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'report.png'), fullPage: true });

      // Choosing a lost update from the list shows it instead.
      const lost = page.locator('#violations-list li', { hasText: 'lost element' }).first();
      if ((await lost.count()) > 0) {
        await page.locator('#focus details').evaluate((d) => d.setAttribute('open', ''));
        await lost.click();
        expect(await page.locator('#violation').getAttribute('data-violation')).toBe('lost-updates');
        expect(await page.locator('#violation .mark').count()).toBe(2);
      }
      // The whole run still draws (merging what is too close to tell apart), fault windows shaded.
      await page.click('#btn-all');
      expect(await page.locator('#timeline .op, #timeline .cluster').count()).toBeGreaterThan(0);
      expect(await page.locator('#timeline .fault').count()).toBeGreaterThan(0);
      expect(await page.textContent('#view-range')).toMatch(/^0\.000 s – /);
      await page.close();
      expect(problems).toEqual([]);
    },
    120_000,
  );

  it('rebuilds the report of a run cut mid-line, checking the recorded prefix', async () => {
    const cut = join(mkdtempSync(join(tmpdir(), 'lockchaos-cut-')), 'run');
    cpSync(dir, cut, { recursive: true });
    for (const f of ['results.json', 'report.html', 'junit.xml']) rmSync(join(cut, f), { force: true });
    const text = readFileSync(join(cut, 'history.jsonl'), 'utf8');
    const end = text.indexOf('\n', Math.floor(text.length / 2));
    writeFileSync(join(cut, 'history.jsonl'), text.slice(0, end - 10));

    const r = await lockchaos(['report', cut]);
    // The first overlap of seed 3 comes in the first seconds: the prefix is invalid already.
    expect(r.stdout).toMatch(/mutual-exclusion\s+INVALID/);
    expect(r.stdout).toMatch(/verdict: INVALID/);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/incomplete run: the run has no results\.json.*was cut mid-write and is left out/);
    const html = readFileSync(join(cut, 'report.html'), 'utf8');
    expect(html).toContain('id="cut-short"');
    expect(readFileSync(join(cut, 'junit.xml'), 'utf8')).toContain('run incomplete');

    if (!noBrowser) {
      const { page, problems } = await open(join(cut, 'report.html'));
      expect(await page.locator('#cut-short').isVisible()).toBe(true);
      expect(await page.locator('#violation').count()).toBe(1);
      await page.close();
      expect(problems).toEqual([]);
    }
  }, 120_000);
});

describe.skipIf(skip)('the run report, on a real valid fenced run', () => {
  let dir = '';

  beforeAll(async () => {
    [, dir] = await runs();
  }, 300_000);

  it.skipIf(noBrowser)(
    'says why it is valid first, draws nothing as a violation, and opens on the rejected write',
    async () => {
      const stored = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as {
        results: {
          checker: string;
          details?: { rejectedWrites?: { index: number; process: number; token: number }[] };
        }[];
      };
      const rejected = stored.results.find((r) => r.checker === 'evidence')?.details?.rejectedWrites ?? [];
      expect(rejected.length, 'the store rejected a stale write').toBeGreaterThan(0);
      const first = rejected[0] as { index: number; process: number; token: number };

      const { page, problems } = await open(join(dir, 'report.html'));
      expect(await page.textContent('#verdict')).toBe('valid');
      expect(await page.textContent('#headline')).toMatch(
        new RegExp(
          `^Process ${first.process}'s stale write \\(token ${first.token}\\) was rejected by the store after it paused [\\d.]+ m?s \\(client-pause\\)(; \\d+ more stale writes? rejected)?; no acknowledged add lost\\.$`,
        ),
      );
      // Nothing carries the violation's style: no red outline, badge or frame, no INVALID, no "What went wrong".
      const red = () =>
        page.evaluate(
          () =>
            [...document.querySelectorAll('#timeline *')].filter(
              (e) => e.getAttribute('stroke') === '#dc2626' || e.getAttribute('fill') === '#dc2626',
            ).length,
        );
      expect(await red()).toBe(0);
      expect(await page.locator('.badge.invalid, td.v-invalid, [data-legend="counted"]').count()).toBe(0);
      expect(await page.textContent('#focus h2')).toBe('Verdict');
      expect(await page.locator('[data-legend="not-counted"]').textContent()).toBe(
        'overlap, not counted: the store rejected the stale write',
      );
      // It opens on the rejected write: focused, numbered in green, scrolled into view.
      const g = page.locator('#violation');
      expect(await g.getAttribute('data-style')).toBe('kept-out');
      expect(await g.getAttribute('data-kind')).toBe('turned-away');
      expect(await g.getAttribute('data-ops')).toBe(String(first.index));
      // With the overlap it ended around it, framed in the not-counted style.
      expect(await page.locator('#violation .context-overlap').count()).toBeGreaterThan(0);
      expect(await page.locator('#violation .context-overlap').first().getAttribute('stroke')).toBe('#d97706');
      expect(await page.textContent('#focus-checker')).toMatch(/^fencing at work: the store rejected a stale write/);
      const badge = await page.evaluate(() => {
        const li = document.querySelector('#focus-marks li');
        return li ? getComputedStyle(li, '::before').backgroundColor : '';
      });
      expect(badge).toBe('rgb(21, 128, 61)');
      const box = await g.evaluate((n) => {
        const r = n.getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, width: r.width, height: window.innerHeight };
      });
      expect(box.width).toBeGreaterThan(0);
      expect(box.top).toBeGreaterThanOrEqual(0);
      expect(box.bottom).toBeLessThanOrEqual(box.height);
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'report-fenced.png') });

      // The overlap of holds, chosen from the list, is amber and dashed: still nothing red.
      await page.locator('#focus details').evaluate((d) => d.setAttribute('open', ''));
      await page.locator('#violations-list li.s-not-counted').first().click();
      expect(await g.getAttribute('data-style')).toBe('not-counted');
      expect(await g.getAttribute('data-kind')).toBe('overlap');
      expect(await page.locator('#violation .violating-hold').count()).toBe(2);
      expect(await red()).toBe(0);
      await page.close();
      expect(problems).toEqual([]);
    },
    120_000,
  );
});

describe('lockchaos report on bad input', () => {
  it('names a missing folder, a folder that is not a run, and a broken history line, exit 3', async () => {
    const missing = await lockchaos(['report', join(store, 'nope')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr.trim()).toBe(`lockchaos report: no such folder: ${join(store, 'nope')}`);

    const empty = mkdtempSync(join(tmpdir(), 'lockchaos-notrun-'));
    const notRun = await lockchaos(['report', empty]);
    expect(notRun.code).toBe(3);
    expect(notRun.stderr.trim().split('\n')).toHaveLength(1);
    expect(notRun.stderr).toMatch(/is not a run folder: it has no test\.json/);

    const broken = mkdtempSync(join(tmpdir(), 'lockchaos-broken-'));
    writeFileSync(join(broken, 'test.json'), JSON.stringify({ ...DEFAULTS, name: 't', workload: 'mutex', seed: 1 }));
    writeFileSync(
      join(broken, 'history.jsonl'),
      '{"index":0,"type":"invoke","f":"acquire","process":0,"time":1}\n{"index":1,"ty\n{"index":2,"type":"ok","f":"acquire","process":0,"time":2}\n',
    );
    const bad = await lockchaos(['report', broken]);
    expect(bad.code).toBe(3);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toMatch(/history\.jsonl line 2: expected one operation as a JSON object/);
  }, 60_000);
});
