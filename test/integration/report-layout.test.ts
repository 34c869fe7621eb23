/**
 * report.html's layout in a real browser at 1400 px (no Docker: a run folder written as a
 * killed runner leaves one, checked by the report): the checkers table breaks no verdict
 * word ("INVALI D" was the bug), and the key to the timeline's numbered badges stays in
 * view, under the page header, while a tall timeline scrolls past.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildRunReport } from '../../src/report/html.js';
import { H } from '../unit/history-builder.js';
import { toJsonl } from '../unit/history-writers.js';
import { runFolder } from '../unit/run-folder-fixture.js';
import { closeBrowser, noBrowser, openPage } from './browser.js';

const L = 'lockchaos:lock';

/** Forty clients taking turns (forty lanes: a tall timeline), then two holding at once. */
function tallInvalidRun(): string {
  const h = new H();
  for (let p = 0; p < 40; p++) h.acquire(p, undefined, L).release(p, L);
  h.acquire(40, undefined, L).acquire(41, undefined, L);
  return runFolder(toJsonl(h.ops));
}

afterAll(closeBrowser);

describe.skipIf(noBrowser)('report.html at 1400 px', () => {
  it('keeps each verdict word whole, and the badge key in view as the timeline scrolls', async () => {
    const { reportPath } = buildRunReport(tallInvalidRun());
    const { page, problems } = await openPage(reportPath);
    expect(await page.textContent('#verdict')).toBe('INVALID');

    // Every verdict cell of the checkers table is one line of text.
    const lines = await page.$$eval('#checkers td[class^="v-"]', (tds) =>
      tds.map((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        return [td.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size];
      }),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(lines).toContainEqual(['INVALID', 1]);
    for (const [word, n] of lines) expect(n, `${word}`).toBe(1);

    // The numbered badges' key: filled, above the timeline, and still in view with the
    // timeline's middle at the top of the window.
    const marks = await page.locator('#timeline-marks li').allTextContents();
    expect(marks.length).toBeGreaterThan(0);
    await page.evaluate(() => {
      const wrap = document.getElementById('timeline-wrap') as HTMLElement;
      window.scrollTo(0, wrap.getBoundingClientRect().top + window.scrollY + wrap.offsetHeight / 2);
    });
    const [head, header] = await page.evaluate(() =>
      ['#timeline-head', 'header'].map((s) => {
        const r = (document.querySelector(s) as HTMLElement).getBoundingClientRect();
        return { top: Math.round(r.top), bottom: Math.round(r.bottom) };
      }),
    );
    expect(head?.top).toBe(header?.bottom);
    expect(await page.locator('#timeline-marks').isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });
});
