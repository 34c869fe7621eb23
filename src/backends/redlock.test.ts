import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Rng } from '../util/rng.js';
import { redlockBackend } from './redlock.js';

/** A port that nothing listens on: listened on, then closed. */
async function refusedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('redlock client', () => {
  let server: Server | undefined;
  afterEach(() => {
    server?.close();
    server = undefined;
  });

  it('whose connect fails part-way closes the masters it reached', async () => {
    // A master that answers +OK to every command (enough for a client to connect), and one refused.
    const accepted: Socket[] = [];
    server = createServer((socket) => {
      accepted.push(socket);
      socket.on('data', (data) => {
        for (const line of data.toString().split('\r\n')) if (line.startsWith('*')) socket.write('+OK\r\n');
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const nodes = [
      { name: 'redis-1', ip: '127.0.0.1', port },
      { name: 'redis-2', ip: '127.0.0.1', port: await refusedPort() },
    ];
    const client = redlockBackend.client(nodes, { requestTimeoutMs: 500, rng: new Rng(1), clientId: 'w0' });
    await expect(client).rejects.toThrow('Connection is closed.');
    expect(accepted).toHaveLength(1);
    const [reached] = accepted as [Socket];
    // The client's end is closed: the master sees its end of the connection end.
    await new Promise<void>((resolve, reject) => {
      if (reached.readableEnded) return resolve();
      const t = setTimeout(() => reject(new Error('the reached master is still connected')), 2000);
      reached.on('end', () => {
        clearTimeout(t);
        resolve();
      });
    });
  });
});
