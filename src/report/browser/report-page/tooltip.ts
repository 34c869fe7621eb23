/**
 * The timeline's tooltip (#tip) for whatever the pointer is over, and a click's details
 * under the timeline (#op-details): an operation clicked is also outlined.
 */
import {
  describeBar,
  describeCluster,
  describeFault,
  describeHold,
  describeMark,
  describeShortHolds,
} from './describe.js';
import type { Page } from './page-view.js';

/** A drag across the timeline: where it began, whether it has moved (then it is no click). */
export interface Drag {
  start: { x: number } | null;
  moved: boolean;
}

/** The element an event happened on, or the nearest ancestor that matches `selector`. */
export function closest(from: EventTarget | null, selector: string): Element | null {
  return from instanceof Element ? from.closest(selector) : null;
}

export const numberAttr = (n: Element, name: string) => +(n.getAttribute(name) as string);

/** The tooltip's place: right of and below the pointer, kept inside the window, above it near the bottom. */
export function tipPosition(
  pointer: { x: number; y: number },
  tip: { width: number; height: number },
  window: { width: number; height: number },
): { left: number; top: number } {
  const left = Math.max(4, Math.min(pointer.x + 14, window.width - tip.width - 8));
  let top = pointer.y + 16;
  if (top + tip.height > window.height - 4) top = pointer.y - tip.height - 10;
  return { left, top };
}

/** The tooltip's lines for the element under the pointer, or null over nothing it describes. */
function tipLines(page: Page, under: EventTarget | null): string[] | null {
  const { D } = page;
  const n = closest(under, '[data-mark],[data-i],[data-n],[data-h],[data-fault]');
  if (!n) return null;
  if (n.hasAttribute('data-mark')) {
    return describeMark(D, page.index.byIndex, D.violations[page.current], numberAttr(n, 'data-mark'));
  }
  if (n.hasAttribute('data-n')) return describeCluster(n.getAttribute('data-n'));
  if (n.hasAttribute('data-i')) return describeBar(D, numberAttr(n, 'data-i'));
  if (n.hasAttribute('data-hn')) return describeShortHolds(n.getAttribute('data-hn'));
  if (n.hasAttribute('data-h')) return describeHold(D, numberAttr(n, 'data-h'));
  return describeFault(D, numberAttr(n, 'data-fault'));
}

export function wireTooltip(page: Page, drag: Drag): void {
  const { svg } = page;
  const tip = document.getElementById('tip')!;
  const details = document.getElementById('op-details')!;
  svg.addEventListener('mousemove', (ev) => {
    if (drag.start) return;
    const lines = tipLines(page, ev.target);
    if (!lines) {
      tip.hidden = true;
      return;
    }
    tip.textContent = lines.join('\n');
    tip.hidden = false;
    const at = tipPosition(
      { x: ev.clientX, y: ev.clientY },
      { width: tip.offsetWidth, height: tip.offsetHeight },
      { width: window.innerWidth, height: window.innerHeight },
    );
    tip.style.left = `${at.left}px`;
    tip.style.top = `${at.top}px`;
  });
  svg.addEventListener('mouseleave', () => {
    tip.hidden = true;
  });
  svg.addEventListener('click', (ev) => {
    const n = closest(ev.target, '[data-i],[data-h]');
    if (!n || drag.moved) return;
    if (n.hasAttribute('data-i')) {
      page.selected = numberAttr(n, 'data-i');
      details.textContent = `${describeBar(page.D, page.selected).join(' · ')} · history.jsonl line ${page.D.bars[page.selected][5] + 1}`;
      page.render();
    } else {
      details.textContent = describeHold(page.D, numberAttr(n, 'data-h')).join(' · ');
    }
  });
}
