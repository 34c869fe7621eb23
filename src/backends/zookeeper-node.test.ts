import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { BACKENDS } from './index.js';

describe("a ZooKeeper node's readiness", () => {
  it("asks the node's own port (a target's may not be 2181)", async () => {
    // Something that answers `srvr` as a standalone server would, on a port of its own.
    const server = createServer((s) => s.once('data', () => s.end('Zookeeper version: 3.8\nMode: standalone\n')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    try {
      const [spec] = BACKENDS.zookeeper.nodeSpecs({});
      const node = { ip: '127.0.0.1', port } as Parameters<NonNullable<typeof spec>['ready']>[0];
      await expect(spec?.ready(node, { restart: false })).resolves.toBeUndefined();
    } finally {
      server.close();
    }
  });
});
