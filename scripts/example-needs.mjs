// The example clients' install needs, from each folder's manifest
// (examples/clients/*/needs.json), for .ci/run: it runs before `npm ci`, so plain node.
// `node scripts/example-needs.mjs apt` prints the Debian packages, `python` the modules the
// system Python must import, `npm` the npm packages with their versions: each once, one a line.
// src/cli/example-needs.ts reads the same manifests for doctor, and its test keeps the two equal.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIELDS = { apt: 'apt', python: 'python', npm: 'npm' };
const field = FIELDS[process.argv[2]];
if (!field) {
  console.error('usage: node scripts/example-needs.mjs apt|python|npm');
  process.exit(2);
}
const root = fileURLToPath(new URL('../examples/clients/', import.meta.url));
const found = new Set();
for (const name of readdirSync(root).sort()) {
  const manifest = join(root, name, 'needs.json');
  if (!existsSync(manifest)) continue;
  for (const need of JSON.parse(readFileSync(manifest, 'utf8'))) {
    if (typeof need[field] === 'string') found.add(need[field]);
  }
}
for (const x of found) console.log(x);
