/**
 * The page of a measurement (sweep.html, bench.html): self-contained like report.html
 * (uPlot, styles, data and script inline; its Content-Security-Policy forbids loading
 * anything and runs only those scripts), with the data as JSON for the page's own script to plot. Tables are rendered
 * here, plots in the browser; `body[data-ready]` says the plots are drawn.
 */
import { version } from '../version.js';
import { pageScript, pageStyle, uplot } from './page-assets.js';
import { escapeHtml, pageHead, scriptJson } from './page-html.js';

export interface MeasurementPage<T> {
  title: string;
  /** One line under the title, already HTML. */
  meta: string;
  /** The page's sections, already HTML; a `<div class="plots" id="...">` for the script to fill. */
  body: string;
  /** Given to the script. */
  data: T;
  /**
   * The page's script: a module of a browser/ folder and its exported function, run in the
   * page after uPlot loads, given the data (see pageScript); it must end by setting
   * body[data-ready].
   */
  script: { module: URL; entry: string };
}

export function measurementPage<T>(p: MeasurementPage<T>, generatedAt = new Date()): string {
  const assets = uplot();
  const scripts = [assets.script, pageScript(p.script.module, p.script.entry, 'page-data')];
  return `${pageHead(p.title, scripts)}
<style>${assets.css}</style>
<style>${pageStyle('measurement')}${pageStyle('uplot-fonts')}</style>
</head>
<body>
<h1>${escapeHtml(p.title)}</h1>
<p class="meta">${p.meta}</p>
${p.body}
<footer class="note">lockchaos ${escapeHtml(version)} · written ${escapeHtml(generatedAt.toISOString())} · plots: uPlot ${escapeHtml(assets.version)} (MIT)</footer>
<script type="application/json" id="page-data">${scriptJson(p.data)}</script>
${scripts.map((x) => x.html).join('\n')}
</body>
</html>
`;
}

/** A number for a table cell: fixed digits, or an en dash for none. */
export const cell = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
