/**
 * The ZooKeeper backend on a real 3-server ensemble: the lock itself (shared suite), the
 * session timeout as the grant's validity, and whole runs through the CLI.
 */
import { describe } from 'vitest';
import { zookeeperBackend } from '../../src/backends/zookeeper.js';
import { endToEndSuite, lockServiceSuite } from './lock-service.js';
import { requireEngine } from './support.js';

const skip = await requireEngine();

describe.skipIf(skip)('ZooKeeper lock on a real 3-server ensemble', () => {
  lockServiceSuite(zookeeperBackend, { serverComm: 'java', probe: 'srvr', ttlMs: 1000 });
});

describe.skipIf(skip)('lockchaos run --backend zookeeper, end to end', () => endToEndSuite('zookeeper', 1000));
