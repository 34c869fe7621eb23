/**
 * report.html's findings, written on the server: the verdict's box with the finding shown
 * and the list of the others, the button that brings it back into view, and the timeline's
 * legend (only the outlines the page can show). The page's script (browser/report-page/)
 * changes the box when another finding is picked, in the same styles (finding-style.ts).
 */
import type { LoadedRun } from '../run-data/run-folder.js';
import { calloutClass, STYLE_COLORS, violationStyle, whoText } from './finding-style.js';
import { escapeHtml } from './page-html.js';
import type { ReportData } from './report-data-types.js';

export function legendHtml(data: ReportData, colors: string[]): string {
  const kinds = data.fs.map(
    (f, i) => `<span><span class="sw" style="background:${colors[i]}"></span>${escapeHtml(f)}</span>`,
  );
  const c = '#64748b';
  const outcomes = [
    `<span><span class="sw" style="background:${c}"></span>ok</span>`,
    `<span><span class="sw" style="background:${c}33;border:1px dashed ${c}"></span>fail (certainly did not happen)</span>`,
    `<span><span class="sw" style="background:repeating-linear-gradient(45deg,${c} 0 2px,#fff 2px 4px);border:1px solid ${c}"></span>info (outcome unknown)</span>`,
    `<span><span class="sw" style="background:repeating-linear-gradient(45deg,${c}99 0 2px,#fff 2px 4px);border:1px dashed ${c}"></span>pending (never completed)</span>`,
  ];
  const others = [
    '<span><span class="sw" style="background:#f59e0b;height:5px;vertical-align:2px"></span>holds the lock (acquire ok → release)</span>',
    '<span><span class="sw" style="background:rgba(100,116,139,.25)"></span>fault window</span>',
    '<span><span class="sw" style="background:#94a3b8"></span>several operations (zoom in)</span>',
  ];
  // What the outline means: only what the page can show (a valid run has no violation to name).
  const styles = new Set(data.violations.map(violationStyle));
  if (styles.has('counted')) {
    others.push(
      `<span data-legend="counted"><span class="sw" style="background:#fff;border:2px solid ${STYLE_COLORS.counted}"></span>the violation</span>`,
    );
  }
  if (styles.has('not-counted')) {
    others.push(
      `<span data-legend="not-counted"><span class="sw" style="background:#fff;border:2px dashed ${STYLE_COLORS['not-counted']}"></span>${data.violations.some((v) => v.kind === 'turned-away') ? 'overlap, not counted: the store rejected the stale write' : 'shown, not counted toward the verdict'}</span>`,
    );
  }
  if (styles.has('kept-out')) {
    others.push(
      `<span data-legend="kept-out"><span class="sw" style="background:#fff;border:2px solid ${STYLE_COLORS['kept-out']}"></span>a stale write the store rejected (fencing at work)</span>`,
    );
  }
  return `<div class="legend">${[...kinds, ...outcomes, ...others].join('')}</div>`;
}

export function focusHtml(run: LoadedRun, data: ReportData): string {
  const v = data.focus >= 0 ? data.violations[data.focus] : undefined;
  if (!v) {
    if (run.valid === true) {
      return '<div class="callout ok"><div class="who">No violation</div>Every counted checker passed: the history shows no violation of the checked properties.</div>';
    }
    const undecided = run.results.filter((r) => r.valid === 'unknown').map((r) => `${r.checker}: ${r.summary}`);
    return `<div class="callout undecided"><div class="who">Undecided</div>${escapeHtml(undecided.join('; ') || 'the checkers could not decide')}</div>`;
  }
  const items = data.violations
    .map(
      (x, i) =>
        `<li data-violation-index="${i}" class="s-${violationStyle(x)}"><span class="tag">${escapeHtml(x.checker)}${x.counted ? '' : ' (not counted)'}</span>${escapeHtml(x.words)}</li>`,
    )
    .join('\n');
  const counted = data.violations.filter((x) => x.counted).length;
  const verdict =
    run.valid === true
      ? '<p class="verdict-line">Every counted checker passed. Shown below for information: what a checker that does not count toward the verdict found.</p>'
      : '';
  const list =
    data.violations.length > 1
      ? `<details${data.violations.length <= 12 ? ' open' : ''}><summary>${counted > 0 ? `${data.violations.length} violations listed (${counted} counted)` : `${data.violations.length} findings listed, none counted`}: click one to show it in the timeline</summary>
<ul id="violations-list">${items}</ul></details>`
      : '';
  const style = violationStyle(v);
  return `${verdict}<div class="${calloutClass(style)}" id="focus-box" data-style="${style}"><div class="who" id="focus-checker">${escapeHtml(whoText(v))}</div><div id="focus-words">${escapeHtml(v.words)}</div><ol id="focus-marks" class="marks s-${style}"></ol></div>
${list}`;
}

/** The button that brings the focused finding back into view, named for what it is. */
export function focusButton(data: ReportData): string {
  const v = data.violations[data.focus];
  if (!v) return 'Show the violation';
  const style = violationStyle(v);
  return style === 'counted' ? 'Show the violation' : style === 'kept-out' ? 'Show the rejected write' : 'Show it';
}
