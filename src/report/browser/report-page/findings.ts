/**
 * The findings listed under the verdict: clicking one shows it (its words and title in the
 * focus box, its badges' key under them and above the timeline, the timeline on it, the
 * latency plot's lines redrawn) and scrolls the timeline to it.
 */
import { calloutClass, violationStyle, whoText } from '../../finding-style.js';
import type { Violation } from '../../report-data-types.js';
import { markLine } from './describe.js';
import type { Page } from './page-view.js';
import { numberAttr } from './tooltip.js';

/** The two lists of the badges' key: under the finding's words, and above the timeline (which stays in view as it scrolls). */
const MARK_LISTS = ['focus-marks', 'timeline-marks'];

/** Fills both lists of the badges' key with the finding's marks. */
export function listMarks(page: Page, v: Violation): void {
  for (const id of MARK_LISTS) {
    const ol = document.getElementById(id);
    if (!ol) continue;
    while (ol.lastChild) ol.removeChild(ol.lastChild);
    v.marks.forEach((m) => {
      const li = document.createElement('li');
      li.textContent = markLine(page.D, page.index.byIndex, m);
      ol.appendChild(li);
    });
  }
}

/** The focus box says what finding `v` is, in its style. */
function describeFocus(v: Violation): void {
  const words = document.getElementById('focus-words');
  if (words) words.textContent = v.words;
  const who = document.getElementById('focus-checker');
  const style = violationStyle(v);
  if (who) who.textContent = whoText(v);
  const box = document.getElementById('focus-box');
  if (box) {
    box.className = calloutClass(style);
    box.setAttribute('data-style', style);
  }
  for (const id of MARK_LISTS) {
    const ol = document.getElementById(id);
    if (ol) ol.className = `marks s-${style}`;
  }
}

/** Shows finding `i`: the focus box, the lists, the timeline on its view; `scroll`: the timeline scrolled to it. */
export function selectFinding(page: Page, i: number, scroll: boolean): void {
  page.current = i;
  const v = page.D.violations[i];
  describeFocus(v);
  listMarks(page, v);
  const items = document.querySelectorAll('[data-violation-index]');
  for (let j = 0; j < items.length; j++) {
    items[j].classList.toggle('current', numberAttr(items[j], 'data-violation-index') === i);
  }
  page.setView(v.view[0], v.view[1]);
  if (page.plot) page.plot.redraw(false, false);
  if (scroll) {
    const g = document.getElementById('violation');
    if (g) g.scrollIntoView({ block: 'center', behavior: 'smooth' });
  }
}

export function wireFindings(page: Page): void {
  const list = document.querySelectorAll('[data-violation-index]');
  for (let j = 0; j < list.length; j++) {
    list[j].addEventListener('click', (ev) => {
      selectFinding(page, numberAttr(ev.currentTarget as Element, 'data-violation-index'), true);
    });
  }
}

/** On opening: the finding shown marked in the list, its key filled, the timeline scrolled to it. */
export function showFirstFinding(page: Page): void {
  if (page.current < 0) return;
  listMarks(page, page.D.violations[page.current]);
  const items = document.querySelectorAll(`[data-violation-index="${page.current}"]`);
  for (let q = 0; q < items.length; q++) items[q].classList.add('current');
  const g = document.getElementById('violation');
  if (g) g.scrollIntoView({ block: 'center' });
}
