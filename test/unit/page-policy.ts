/**
 * What every page lockchaos writes must hold (src/report/csp.ts): a Content-Security-Policy
 * <meta> whose script-src names, by SHA-256, exactly the page's own executable inline
 * scripts, and nothing that runs any other.
 */
import { createHash } from 'node:crypto';
import { expect } from 'vitest';

export function expectOwnScriptsOnly(html: string): void {
  const metas = [...html.matchAll(/<meta http-equiv="Content-Security-Policy" content="([^"]*)">/g)];
  expect(metas).toHaveLength(1);
  const policy = metas[0]?.[1] ?? '';
  expect(policy).toMatch(/^default-src 'none';/);
  const scriptSrc = /script-src ([^;]*)/.exec(policy)?.[1]?.split(' ') ?? [];
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(scriptSrc).not.toContain("'unsafe-eval'");
  // Data blocks (type="application/json") do not run; every other script element does.
  const bodies = [...html.matchAll(/<script(?: type="module")?>([\s\S]*?)<\/script>/g)].map((m) => m[1] as string);
  const hashes = bodies.map((b) => `'sha256-${createHash('sha256').update(b, 'utf8').digest('base64')}'`);
  expect(scriptSrc.filter((s) => s !== "'none'").sort()).toEqual([...new Set(hashes)].sort());
  expect(html).not.toMatch(/<script(?!>| type="module">| type="application\/json" id="[\w-]+">)/);
}
