/**
 * Changing the timeline's view by hand: drag across it to zoom into a span (a band follows
 * the pointer), double-click for the whole run, Ctrl/Alt/Meta + wheel to zoom about the
 * pointer, Shift + wheel to pan; and the toolbar's buttons.
 */
import type { Page } from './page-view.js';
import { el } from './svg.js';
import { AXIS_H, timeAt } from './timeline-layout.js';
import type { Drag } from './tooltip.js';
import { panned, type Range, zoomed, zoomedAt } from './view-range.js';

/** The pointer's x in the timeline's own units (its viewBox). */
function plotX(svg: SVGSVGElement, ev: MouseEvent): number {
  const r = svg.getBoundingClientRect();
  return (ev.clientX - r.left) * (svg.viewBox.baseVal.width / r.width);
}

/** What a wheel turn does to `view` with the pointer at time `at`: pan with Shift, else zoom about `at`. */
export function wheelView(view: Range, at: number, delta: number, shift: boolean): Range {
  if (shift) return panned(view, Math.sign(delta) * 0.15);
  return zoomedAt(view, at, delta > 0 ? 1.25 : 0.8);
}

function wireDrag(page: Page, drag: Drag): void {
  const { svg } = page;
  const tip = document.getElementById('tip')!;
  let band: SVGElement | null = null;
  svg.addEventListener('mousedown', (ev) => {
    if (ev.button !== 0) return;
    drag.start = { x: plotX(svg, ev) };
    drag.moved = false;
  });
  window.addEventListener('mousemove', (ev) => {
    if (!drag.start) return;
    const x = plotX(svg, ev);
    if (Math.abs(x - drag.start.x) > 4) drag.moved = true;
    if (!drag.moved) return;
    if (!band) {
      band = el(
        'rect',
        { y: AXIS_H, height: page.height - AXIS_H, fill: 'rgba(37,99,235,0.12)', stroke: '#2563eb', class: 'brush' },
        svg,
      );
    }
    band.setAttribute('x', String(Math.min(x, drag.start.x)));
    band.setAttribute('width', String(Math.abs(x - drag.start.x)));
    tip.hidden = true;
  });
  window.addEventListener('mouseup', (ev) => {
    if (!drag.start) return;
    const x = plotX(svg, ev);
    const start = drag.start.x;
    drag.start = null;
    if (band) {
      band.remove();
      band = null;
    }
    if (drag.moved) {
      const width = svg.viewBox.baseVal.width;
      const a = timeAt(page.view, width, Math.min(x, start));
      const b = timeAt(page.view, width, Math.max(x, start));
      if (b - a > 0) page.setView(a, b);
      // The click that ends a drag comes after this: it selects nothing.
      setTimeout(() => {
        drag.moved = false;
      }, 0);
    }
  });
}

export function wireZoom(page: Page, drag: Drag): void {
  const { svg } = page;
  wireDrag(page, drag);
  svg.addEventListener('dblclick', () => {
    page.setView(page.full[0], page.full[1]);
  });
  svg.addEventListener(
    'wheel',
    (ev) => {
      if (!(ev.ctrlKey || ev.altKey || ev.metaKey || ev.shiftKey)) return;
      ev.preventDefault();
      const at = ev.shiftKey ? 0 : timeAt(page.view, svg.viewBox.baseVal.width, plotX(svg, ev));
      const [a, b] = wheelView(page.view, at, ev.deltaY || ev.deltaX, ev.shiftKey);
      page.setView(a, b);
    },
    { passive: false },
  );
  const on = (id: string, fn: () => void) => document.getElementById(id)?.addEventListener('click', fn);
  const show = ([a, b]: Range) => page.setView(a, b);
  on('btn-all', () => page.setView(page.full[0], page.full[1], true));
  on('btn-in', () => show(zoomed(page.view, 0.5)));
  on('btn-out', () => show(zoomed(page.view, 2)));
  on('btn-left', () => show(panned(page.view, -0.4)));
  on('btn-right', () => show(panned(page.view, 0.4)));
  on('btn-violation', () => {
    if (page.current >= 0) show(page.D.violations[page.current].view);
  });
}
