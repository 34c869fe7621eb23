/**
 * The page of a measurement (sweep.html, bench.html): self-contained like report.html
 * (uPlot, styles, data and script inline; its Content-Security-Policy forbids loading
 * anything), with the data as JSON for the page's own script to plot. Tables are rendered
 * here, plots in the browser; `body[data-ready]` says the plots are drawn.
 */
import { version } from '../version.js';
import { escapeHtml, pageHead, scriptJson, uplot } from './html.js';

const CSS = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .2em; } h2 { font-size: 1.15em; margin: 1.4em 0 .4em; }
.meta { color: #555; margin: 0 0 1em; } .note { color: #555; font-size: .92em; max-width: 60em; }
table { border-collapse: collapse; margin: .4em 0 1em; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .55em; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
tr.disagree { background: #fdf3e3; } .thin { color: #a05a00; } .bad { color: #a01010; font-weight: 600; }
.plots { display: flex; flex-wrap: wrap; gap: 1.2em; } .plot { min-width: 420px; }
.plot h3 { font-size: 1em; margin: .2em 0; } code { font-size: .92em; }
.uplot { font-family: inherit; } .u-legend { font-size: 12.5px; }
`;

export interface MeasurementPage {
  title: string;
  /** One line under the title, already HTML. */
  meta: string;
  /** The page's sections, already HTML; a `<div class="plots" id="...">` for the script to fill. */
  body: string;
  /** Given to the script as `DATA`. */
  data: unknown;
  /** Plain JS run after uPlot loads; it reads DATA and must end by setting body[data-ready]. */
  script: string;
}

export function measurementPage(p: MeasurementPage, generatedAt = new Date()): string {
  const assets = uplot();
  return `${pageHead(p.title)}
<style>${assets.css}</style>
<style>${CSS}</style>
</head>
<body>
<h1>${escapeHtml(p.title)}</h1>
<p class="meta">${p.meta}</p>
${p.body}
<footer class="note">lockchaos ${escapeHtml(version)} · written ${escapeHtml(generatedAt.toISOString())} · plots: uPlot ${escapeHtml(assets.version)} (MIT)</footer>
<script type="application/json" id="page-data">${scriptJson(p.data)}</script>
<script>${assets.js}</script>
<script>
const DATA = JSON.parse(document.getElementById('page-data').textContent);
${p.script}
</script>
</body>
</html>
`;
}

/** A number for a table cell: fixed digits, or an en dash for none. */
export const cell = (x: number | null | undefined, digits = 2) =>
  x === null || x === undefined || !Number.isFinite(x) ? '–' : x.toFixed(digits);
