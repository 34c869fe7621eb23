import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './util/paths.js';

/** The package version, read once from package.json (one place for it). */
export const version: string = (
  JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string }
).version;
