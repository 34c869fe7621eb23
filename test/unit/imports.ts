/**
 * The project's TypeScript files and what each imports, read from its import statements
 * (static, dynamic, re-exports, type-only and side-effect ones): for the tests of how the
 * files depend on each other (layers.test.ts, import-circles.test.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The .ts files under `dir`, less the declaration files and, unless `tests`, the tests. */
export function sources(dir: string, tests = false): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path, tests);
    if (!name.endsWith('.ts') || name.endsWith('.d.ts')) return [];
    return tests || !name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Relative module specifiers of a file's imports and re-exports (static, dynamic and side-effect ones). */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'(\.[^']+)'/g)) found.push(m[1] as string);
  for (const m of text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g)) found.push(m[1] as string);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s*'(\.[^']+)'/g)) found.push(m[1] as string);
  return found;
}
