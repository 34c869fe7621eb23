/** How the page writes times and latencies. */

/** Milliseconds since the test began, as seconds: three decimals, two from 100 s on. */
export function fmtS(ms: number): string {
  const s = ms / 1000;
  return `${Math.abs(s) >= 100 ? s.toFixed(2) : s.toFixed(3)} s`;
}

/** A latency: three decimals under 1 ms, one under 100 ms, whole above; an en dash for none. */
export function fmtMs(v: number | null | undefined): string {
  if (v == null) return '–';
  return `${v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(1) : String(Math.round(v))} ms`;
}

/** A round step near `raw` (1, 2 or 5 times a power of ten), for axis ticks. */
export function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/** How many decimals a tick in seconds needs when ticks are `stepMs` apart (0 to 6). */
export const tickDecimals = (stepMs: number) => Math.max(0, Math.min(6, Math.ceil(-Math.log10(stepMs / 1000))));
