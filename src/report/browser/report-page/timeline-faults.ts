/** Fault windows in the timeline: shaded across every lane, labelled in their row, the lane it hit hatched. */
import { laneTop, type Page } from './page-view.js';
import { el } from './svg.js';
import { AXIS_H, FAULT_H, LANE_H, type TimelineScale } from './timeline-layout.js';

/** A label cut to fit `width` px (about 6.2 px a character), with an ellipsis. */
export function faultLabel(label: string, width: number): string {
  const chars = Math.floor((width - 8) / 6.2);
  return label.length > chars ? `${label.slice(0, Math.max(1, chars - 1))}…` : label;
}

export function drawFaults(page: Page, s: TimelineScale, plotG: Element): void {
  const { D, height } = page;
  const faultG = el('g', { class: 'faults' }, plotG);
  D.faults.forEach((f, i) => {
    const end = f.endMs < 0 ? D.endMs : f.endMs;
    if (end < s.t0 || f.startMs > s.t1) return;
    const x0 = s.clampX(s.X(f.startMs));
    const x1 = s.clampX(s.X(end));
    const w = Math.max(1, x1 - x0);
    el(
      'rect',
      {
        x: x0,
        y: AXIS_H,
        width: w,
        height: height - AXIS_H,
        fill: 'rgba(100,116,139,0.13)',
        class: 'fault',
        'data-fault': i,
      },
      faultG,
    );
    const fy = AXIS_H + f.row * FAULT_H;
    el('rect', { x: x0, y: fy + 2, width: w, height: FAULT_H - 4, rx: 2, fill: '#64748b', 'data-fault': i }, faultG);
    if (w > 40)
      el('text', { x: x0 + 4, y: fy + 13, class: 'fault-label', 'data-fault': i }, faultG, faultLabel(f.label, w));
    if (f.lane >= 0) {
      el(
        'rect',
        { x: x0, y: laneTop(page, f.lane), width: w, height: LANE_H, fill: 'url(#fault-hatch)', 'data-fault': i },
        faultG,
      );
    }
  });
}
