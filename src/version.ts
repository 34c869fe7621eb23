import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './util/paths.js';

const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
  version: string;
  bugs?: string | { url?: string };
};

/** The package version, read once from package.json (one place for it). */
export const version: string = pkg.version;

/** Where a bug in lockchaos is reported: package.json's `bugs` URL. */
export const bugsUrl: string | undefined = typeof pkg.bugs === 'string' ? pkg.bugs : pkg.bugs?.url;

/** The schema version of lockchaos's JSON files: raised when a file's fields change meaning. */
export const SCHEMA_VERSION = 1;

/**
 * A JSON file's data with what wrote it first: `lockchaos` (the version) and `schema`.
 * Readers take the fields they know and leave these alone.
 */
export function stamped<T extends object>(data: T): { lockchaos: string; schema: number } & T {
  const { lockchaos: _v, schema: _s, ...rest } = data as T & { lockchaos?: unknown; schema?: unknown };
  return { lockchaos: version, schema: SCHEMA_VERSION, ...(rest as T) };
}
