import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForRedis } from './redis-node.js';

let server: Server | undefined;
afterEach(() => server?.close());

/** A loopback port whose every connection hears `greeting` first, as an sshd's does. */
function portThatSays(greeting: string): Promise<number> {
  return new Promise((resolve) => {
    const listening = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.write(greeting);
    });
    server = listening;
    listening.listen(0, '127.0.0.1', () => {
      const address = listening.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    });
  });
}

describe('waitForRedis', () => {
  it('gives up on a port that answers in another protocol at once, not at its deadline, naming what it heard', async () => {
    const port = await portThatSays('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n');
    // A deadline no test reaches: the wait must end on what it heard, not on time.
    const wait = waitForRedis('127.0.0.1', 600_000, port);
    await expect(wait).rejects.toThrow(
      `redis at 127.0.0.1:${port} answers, but not as the service: Unknown RESP type 83 "S".`,
    );
  });
});
