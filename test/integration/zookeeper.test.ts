/**
 * The ZooKeeper backend on a real 3-server ensemble: the lock itself (shared suite), the
 * session timeout as the grant's validity, and whole runs through the CLI.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { zookeeperBackend } from '../../src/backends/zookeeper.js';
import { lockServiceSuite } from './lock-service.js';
import { leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const store = mkdtempSync(join(tmpdir(), 'lockchaos-zookeeper-'));

describe.skipIf(skip)('ZooKeeper lock on a real 3-server ensemble', () => {
  lockServiceSuite(zookeeperBackend, { serverComm: 'java', probe: 'srvr', ttlMs: 1000 });
});

describe.skipIf(skip)('lockchaos run --backend zookeeper, end to end', () => {
  const run = (args: string[]) =>
    lockchaos(['run', '--backend', 'zookeeper', '--workload', 'lock-set', '--store', store, ...args]);

  it.each([['on'], ['off']])('is valid without faults, fencing %s', async (fencing) => {
    const r = await run(['--nemesis', 'none', '--fencing', fencing, '--time-limit', '8', '--seed', '1']);
    expect(r.stdout).toMatch(/lost-updates\s+valid/);
    expect(r.stdout).toMatch(/mutual-exclusion\s+valid/);
    expect(r.code).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('keeps the data safe with fencing under client pauses, while showing the overlapping beliefs', async () => {
    const r = await run([
      '--nemesis',
      'client-pause',
      '--fencing',
      'on',
      '--time-limit',
      '20',
      '--ttl',
      '1000',
      '--nemesis-interval',
      '2',
      '--seed',
      '1',
    ]);
    expect(r.stdout).toMatch(/mutual-exclusion\s+INVALID.*\(shown, not counted\)/);
    expect(r.stdout).toMatch(/lost-updates\s+valid/);
    expect(r.stdout).toMatch(/fencing\s+valid\s+\d+ grants with growing tokens/);
    expect(r.code).toBe(0);
    expect(await leftovers(r.pid)).toEqual([]);
  });
});
