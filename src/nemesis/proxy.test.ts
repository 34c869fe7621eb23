/**
 * The proxy's wire trap on real sockets on the loopback: a request named and held, then let
 * go (its answer arrives only after), and a dropped one (the connection closes).
 */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WIRE_NAME_LENGTH, MAX_WIRE_NAMES, TcpProxy } from './proxy.js';

/** A server that answers +OK to each line-sized RESP request it reads (enough for these tests). */
async function okServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = net.createServer((s) =>
    s.on('data', (d) => s.write('+OK\r\n'.repeat(String(d).split('*').length - 1))),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const resp = (...args: string[]) => `*${args.length}\r\n${args.map((a) => `$${a.length}\r\n${a}\r\n`).join('')}`;

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of open.splice(0)) await close();
});

async function connected(watch = true) {
  const server = await okServer();
  const proxy = new TcpProxy('127.0.0.1', server.port, watch);
  await proxy.listen();
  const client = net.connect(proxy.port, '127.0.0.1');
  // A dropped request closes the connection: a reset then is the test's subject, not an error.
  client.on('error', () => undefined);
  await new Promise<void>((r) => client.once('connect', () => r()));
  const answers: string[] = [];
  client.on('data', (d) => answers.push(...String(d).split('\r\n').filter(Boolean)));
  open.push(async () => {
    client.destroy();
    await proxy.close();
    await server.close();
  });
  return { proxy, client, answers };
}

const settle = () => new Promise((r) => setTimeout(r, 150));

/** Waits until `answers` has `n` entries (a loaded machine delays them; no deadline of its own). */
async function untilAnswers(answers: string[], n: number): Promise<void> {
  while (answers.length < n) await new Promise((r) => setTimeout(r, 10));
}

describe('the TCP proxy on the wire', () => {
  it('holds the request a trap names, and what follows it, until let go; counts what it saw', async () => {
    const { proxy, client, answers } = await connected();
    let letGo: () => void = () => {};
    const hold = new Promise<void>((r) => {
      letGo = r;
    });
    let answered = 0;
    proxy.trap = (name) => (name === 'DEL' ? { hold, answered: () => answered++ } : undefined);
    client.write(resp('SET', 'k', 'v') + resp('DEL', 'k') + resp('GET', 'k'));
    await untilAnswers(answers, 1);
    await settle(); // time for what was held to arrive, were it let through
    expect(answers).toEqual(['+OK']); // SET went; DEL and the GET behind it wait
    letGo();
    await untilAnswers(answers, 3);
    expect(answers).toEqual(['+OK', '+OK', '+OK']);
    expect(answered).toBe(1);
    expect(Object.fromEntries(proxy.seen)).toEqual({ SET: 1, DEL: 1, GET: 1 });
  });

  it('tallies at most MAX_WIRE_NAMES names, none longer than MAX_WIRE_NAME_LENGTH', async () => {
    const { proxy, client, answers } = await connected();
    const names = Array.from({ length: MAX_WIRE_NAMES + 10 }, (_, i) => `X${i}`);
    client.write(names.map((n) => resp(n)).join('') + resp('Y'.repeat(MAX_WIRE_NAME_LENGTH + 1)) + resp('X0'));
    await untilAnswers(answers, names.length + 2);
    expect(proxy.seen.size).toBe(MAX_WIRE_NAMES);
    expect(proxy.seen.get('X0')).toBe(2);
    expect(proxy.untallied).toBe(11);
  });

  it('drops a request: it never reaches the server, and the client finds its connection closed', async () => {
    const { proxy, client, answers } = await connected();
    proxy.trap = (name) => (name === 'DEL' ? { drop: true } : undefined);
    const closed = new Promise<void>((r) => client.once('close', () => r()));
    client.write(resp('DEL', 'k'));
    await closed;
    expect(answers).toEqual([]);
  });

  it('names nothing on a route it does not watch (the data store)', async () => {
    const { proxy, client, answers } = await connected(false);
    proxy.trap = () => ({ drop: true });
    client.write(resp('DEL', 'k'));
    await untilAnswers(answers, 1);
    expect(answers).toEqual(['+OK']);
    expect(proxy.seen.size).toBe(0);
  });
});
