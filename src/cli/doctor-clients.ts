/**
 * `lockchaos doctor`'s line on the example clients (examples/clients/): which of them this
 * machine can run, and what to install for the rest. They are examples, not what lockchaos
 * needs, so a missing library is a warning.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../util/paths.js';
import type { DoctorCheck } from './doctor-check.js';

/** Debian's python3-* packages are importable by the system Python, not by a pyenv one. */
const PYTHON = '/usr/bin/python3';

type Need = { python: string; apt: string } | { node: string; npm: string };

const EXAMPLES: [string, Need[]][] = [
  ['node-redlock', [{ node: 'redlock', npm: 'redlock@4.2.0' }]],
  ['redis-semaphore', [{ node: 'redis-semaphore', npm: 'redis-semaphore@5.8.0' }]],
  ['redis-py-lock', [{ python: 'redis', apt: 'python3-redis' }]],
  ['kazoo-lock', [{ python: 'kazoo', apt: 'python3-kazoo' }]],
  ['etcd3-lock', [{ python: 'etcd3', apt: 'python3-etcd3' }]],
  ['seed-fenced-lock', [{ python: 'json', apt: 'python3' }]],
  ['seed-fenced-lock-fixed', [{ python: 'redis', apt: 'python3-redis' }]],
];

/** What is missing for `need`, in words with the install command; undefined if nothing. */
function missing(need: Need): string | undefined {
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
  for (const [example, needs] of EXAMPLES) {
    const gaps = needs.map(missing).filter((m) => m !== undefined);
    if (gaps.length === 0) runnable.push(example);
    else lacking.push(`${example}: ${gaps.join(', ')}`);
  }
  const can = `can run ${runnable.length > 0 ? runnable.join(', ') : 'none'}`;
  return lacking.length === 0
    ? { name: 'example clients', status: 'ok', detail: can }
    : { name: 'example clients', status: 'warn', detail: `${can}; not ${lacking.join('; ')}` };
}
