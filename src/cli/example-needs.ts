/**
 * What each example client (examples/clients/<name>/) needs installed, from its manifest,
 * needs.json: a list of needs, each a Python module the system Python must import and the
 * Debian package that has it, or an npm package and the spec to install. The one list:
 * doctor reads it here, .ci/run through scripts/example-needs.mjs (before npm ci), and the
 * example's README names the same packages (example-needs.test.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../util/paths.js';

export type ExampleNeed = { python: string; apt: string } | { node: string; npm: string };

export interface ExampleClient {
  /** Its folder's name under examples/clients/. */
  name: string;
  needs: ExampleNeed[];
}

export const EXAMPLE_CLIENTS_DIR = join(packageRoot, 'examples', 'clients');

const isString = (x: unknown): x is string => typeof x === 'string' && x.length > 0;

function needOf(x: unknown, where: string): ExampleNeed {
  const n = (x ?? {}) as Record<string, unknown>;
  if (isString(n.python) && isString(n.apt)) return { python: n.python, apt: n.apt };
  if (isString(n.node) && isString(n.npm)) return { node: n.node, npm: n.npm };
  throw new Error(`${where}: a need is { "python", "apt" } or { "node", "npm" }, not ${JSON.stringify(x)}`);
}

/** Every example client with a manifest, by its folder's name. */
export function exampleClients(dir = EXAMPLE_CLIENTS_DIR): ExampleClient[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, 'needs.json')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const manifest = join(dir, name, 'needs.json');
      const list: unknown = JSON.parse(readFileSync(manifest, 'utf8'));
      if (!Array.isArray(list)) throw new Error(`${manifest}: a list of needs`);
      return { name, needs: list.map((x) => needOf(x, manifest)) };
    });
}
