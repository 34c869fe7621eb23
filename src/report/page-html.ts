/**
 * The HTML every self-contained page lockchaos writes shares (report.html, summary.html,
 * shrink.html, sweep.html, bench.html, serve's pages): text escaped, JSON that cannot close
 * its <script>, and the head with the page's Content-Security-Policy.
 */
import { cspMeta, type InlineScript } from './csp.js';

export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Any value read from a file, as HTML text: a number in a JSON file may be a string. */
export const htmlText = (v: unknown) => escapeHtml(String(v));

/** JSON inside <script type="application/json">: nothing in it can close the element. */
export const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * The start of a self-contained page, up to its <title>: a Content-Security-Policy that
 * forbids loading anything and runs only `scripts` (csp.ts), and no favicon request.
 */
export const pageHead = (title: string, scripts: readonly InlineScript[]) => `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${cspMeta(scripts)}
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>`;
