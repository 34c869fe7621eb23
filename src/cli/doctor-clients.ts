/**
 * `lockchaos doctor`'s line on the example clients (examples/clients/): which of them this
 * machine can run, and what to install for the rest (each one's needs.json). They are
 * examples, not what lockchaos needs, so a missing library is a warning.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../util/paths.js';
import type { DoctorCheck } from './doctor-check.js';
import { type ExampleNeed, exampleClients } from './example-needs.js';

/** Debian's python3-* packages are importable by the system Python, not by a pyenv one. */
const PYTHON = '/usr/bin/python3';

/** What is missing for `need`, in words with the install command; undefined if nothing. */
function missing(need: ExampleNeed): string | undefined {
  if ('node' in need) {
    try {
      createRequire(join(packageRoot, 'package.json')).resolve(need.node);
      return undefined;
    } catch {
      return `npm package ${need.node} (npm install ${need.npm})`;
    }
  }
  const r = spawnSync(PYTHON, ['-c', `import ${need.python}`], { stdio: 'ignore', timeout: 10_000 });
  return r.status === 0 ? undefined : `${PYTHON} cannot import ${need.python} (apt-get install ${need.apt})`;
}

export function exampleClientsCheck(): DoctorCheck {
  const runnable: string[] = [];
  const lacking: string[] = [];
  for (const { name: example, needs } of exampleClients()) {
    const gaps = needs.map(missing).filter((m) => m !== undefined);
    if (gaps.length === 0) runnable.push(example);
    else lacking.push(`${example}: ${gaps.join(', ')}`);
  }
  const can = `can run ${runnable.length > 0 ? runnable.join(', ') : 'none'}`;
  return lacking.length === 0
    ? { name: 'example clients', status: 'ok', detail: can }
    : { name: 'example clients', status: 'warn', detail: `${can}; not ${lacking.join('; ')}` };
}
