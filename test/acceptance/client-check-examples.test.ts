/**
 * Each shipped example client (examples/clients/) through client-check against its real
 * server: it answers init in protocol 2 and passes, leaving nothing behind. Moved here from
 * client-libraries.test (CI's 25 minutes): client-program.test checks client-check itself
 * on every answer a program can give, and client-libraries.test runs each example's preset.
 */
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';
import { leftovers, lockchaos, requireEngine } from '../integration/support.js';

const skip = await requireEngine();

describe.skipIf(skip)('the example lock libraries through client-check', () => {
  // Two at a time: each starts servers of its own.
  it.concurrent.for([
    ['node-redlock', 'redlock', 'node', 'client.mjs'],
    ['redis-semaphore', 'redis', 'node', 'client.mjs'],
    ['kazoo-lock', 'zookeeper', '/usr/bin/python3', 'client.py'],
    ['etcd3-lock', 'etcd', '/usr/bin/python3', 'client.py'],
    ['seed-fenced-lock', 'redis', '/usr/bin/python3', 'client.py'],
    ['seed-fenced-lock-fixed', 'redis', '/usr/bin/python3', 'client.py'],
  ])('client-check of %s (against %s): exit 0', async ([folder, backend, program, file], { expect }) => {
    const adapter = join(packageRoot, 'examples/clients', folder, file);
    const r = await lockchaos(['client-check', '--backend', backend, '--', program, adapter]);
    expect(r.stdout).toMatch(/c0 acquire: ok/);
    // Their loops (examples/clients/protocol.py, protocol.mjs) answer init in version 2.
    expect(r.stdout).toMatch(/client-check: speaks protocol 2\n$/);
    expect(r.code).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
  });
});
