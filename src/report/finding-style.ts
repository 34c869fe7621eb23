/**
 * How report.html draws a finding, the same on the server (html.ts) and in the page's script
 * (browser/report-page/): in red only when it counts; a shown-only one (an overlap on a
 * fenced run) in amber, dashed; a stale write the store turned away (what makes a fenced run
 * valid) in green. No DOM and no Node here: the page bundles it.
 */
import type { Violation } from './report-data-types.js';

export type ViolationStyle = 'counted' | 'not-counted' | 'kept-out';

export const violationStyle = (v: Violation): ViolationStyle =>
  v.counted ? 'counted' : v.kind === 'turned-away' ? 'kept-out' : 'not-counted';

/** A finding's outline and badges. */
export const STYLE_COLORS: Record<ViolationStyle, string> = {
  counted: '#dc2626',
  'not-counted': '#d97706',
  'kept-out': '#15803d',
};

const NOT_COUNTED = ' — shown, not counted toward the verdict';

/** The focus box's title for a finding. */
export const whoText = (v: Violation) =>
  v.kind === 'turned-away' && !v.counted
    ? 'fencing at work: the store rejected a stale write (why this run is valid)'
    : `${v.checker}${v.counted ? '' : NOT_COUNTED}`;

/** The focus box's class: red for a counted finding, green for a rejected write, amber otherwise. */
export const calloutClass = (style: ViolationStyle) =>
  `callout${style === 'counted' ? '' : style === 'kept-out' ? ' ok' : ' undecided'}`;
