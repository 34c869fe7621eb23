import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectRedis, truthfulOptions } from './redis-node.js';

/** A free port: listened on, then closed, so nothing answers on it until we listen again. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Enough of a Redis server for a client to connect: +OK to every command it is sent. */
const okServer = () =>
  createServer((socket) =>
    socket.on('data', (data) => {
      for (const line of data.toString().split('\r\n')) if (line.startsWith('*')) socket.write('+OK\r\n');
    }),
  );

describe('connectRedis', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    server = undefined;
  });

  it('keeps trying through its patience: a server that comes up late is reached', async () => {
    const port = await freePort();
    // Nothing listens for 300 ms: the first attempts are refused.
    setTimeout(() => {
      server = okServer().listen(port, '127.0.0.1');
    }, 300);
    const client = await connectRedis({ host: '127.0.0.1', port, ...truthfulOptions(500) }, 5000);
    expect(client.status).toBe('ready');
    client.disconnect();
  });

  it('with no patience (a probe), fails at the first refused attempt', async () => {
    const port = await freePort();
    await expect(connectRedis({ host: '127.0.0.1', port, ...truthfulOptions(500) }, 0)).rejects.toThrow();
  });
});
