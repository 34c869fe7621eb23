/**
 * A campaign's module backends (paths given as a matrix entry's backend), imported before
 * the campaign is validated: a module backend can only be checked once imported, which is
 * asynchronous. Built-in names need nothing.
 */
import { isModulePath, loadBackend } from '../backends/index.js';

/** The names a campaign's entries give as backends, each once; malformed data gives none (validation says why). */
export function backendNamesOf(data: unknown): string[] {
  const matrix = typeof data === 'object' && data !== null && 'matrix' in data ? data.matrix : undefined;
  const backendOf = (e: unknown) => (typeof e === 'object' && e !== null && 'backend' in e ? e.backend : undefined);
  const backends = Array.isArray(matrix) ? matrix.flatMap((e) => [backendOf(e)]) : [];
  return [...new Set(backends.flat().filter((b): b is string => typeof b === 'string'))];
}

/** Imports those of `names` that are module paths (from `baseDir`). */
export async function loadModuleBackends(names: readonly string[], baseDir = process.cwd()): Promise<void> {
  for (const name of names) if (isModulePath(name)) await loadBackend(name, baseDir);
}
