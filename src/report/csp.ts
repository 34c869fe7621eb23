/**
 * The Content-Security-Policy of every page lockchaos writes (report.html, summary.html,
 * shrink.html, sweep.html, bench.html) or serves: nothing is loaded from anywhere, and a
 * script runs only when it is one of the page's own, named by the SHA-256 of its text. A
 * value from a run or store folder that escaping missed still cannot run, then: the
 * folders may come from someone else (a fork's CI artifacts).
 *
 * Styles stay 'unsafe-inline': the pages colour elements with style attributes, and a
 * style cannot run script.
 */
import { createHash } from 'node:crypto';

/** A script element a page inlines, and the hash source its policy allows it by. */
export interface InlineScript {
  html: string;
  hash: string;
}

/** The CSP source naming a script whose text is exactly `body`. */
export const scriptHash = (body: string) => `'sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}'`;

/** An inline script element (`module`: type="module") with its hash. */
export function inlineScript(body: string, kind: 'classic' | 'module' = 'classic'): InlineScript {
  if (/<\/script/i.test(body)) throw new Error('a script cannot be inlined: it contains a closing tag');
  return { html: `<script${kind === 'module' ? ' type="module"' : ''}>${body}</script>`, hash: scriptHash(body) };
}

/** The policy of a page whose only scripts are `scripts`; none: no script at all. */
export function contentSecurityPolicy(scripts: readonly InlineScript[] = []): string {
  const scriptSrc = scripts.length > 0 ? scripts.map((s) => s.hash).join(' ') : "'none'";
  return `default-src 'none'; script-src ${scriptSrc}; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'self'`;
}

/** The policy as a static page's <meta> (a file opened from disk has no header to send it in). */
export const cspMeta = (scripts: readonly InlineScript[] = []) =>
  `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(scripts)}">`;
