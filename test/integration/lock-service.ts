/**
 * What every lock service with leases and fencing tokens must do on its real cluster,
 * shared by the etcd and ZooKeeper suites: start, take and give back the lock, refuse a
 * second holder, grow its tokens, name its leader, and take the lock away from a client
 * that stopped (a real process, SIGSTOPped) once its lease ends, giving it to the next
 * client with a larger token.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Backend, Grant, LockClient, NodeAddress } from '../../src/backends/backend.js';
import { type Cluster, startCluster } from '../../src/cluster/cluster.js';
import { removeResources } from '../../src/cluster/labels.js';
import { sleep } from '../../src/util/clock.js';
import { packageRoot } from '../../src/util/paths.js';
import { Rng } from '../../src/util/rng.js';

export interface LockServiceExpectations {
  /** The server's process name, PID 1 of every node. */
  serverComm: string;
  ttlMs: number;
}

/**
 * A client in its own process (built code, as the workers run it), driven over IPC, so that
 * the test can SIGSTOP it like a GC pause.
 */
class ClientProcess {
  private readonly child: ChildProcess;
  private readonly replies: unknown[] = [];
  private waiting: ((reply: unknown) => void) | undefined;

  constructor(backend: string, nodes: NodeAddress[]) {
    const entry = join(packageRoot, 'dist/src/backends/index.js');
    const code = `
      const { backendByName } = await import(${JSON.stringify(entry)});
      const { Rng } = await import(${JSON.stringify(join(packageRoot, 'dist/src/util/rng.js'))});
      const client = await backendByName(${JSON.stringify(backend)}).client(${JSON.stringify(nodes)},
        { requestTimeoutMs: 1000, rng: new Rng(7), clientId: 'paused' });
      let grant;
      process.on('message', async (m) => {
        try {
          if (m.op === 'acquire') { grant = await client.acquire(m.lock, m.opts); process.send({ grant }); }
          if (m.op === 'release') process.send({ released: await client.release(grant) });
          if (m.op === 'close') { await client.close(); process.send({ closed: true }); process.disconnect(); }
        } catch (err) { process.send({ error: String(err) }); }
      });
      process.send({ ready: true });`;
    this.child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child.on('message', (m) => {
      if (this.waiting) {
        const w = this.waiting;
        this.waiting = undefined;
        w(m);
      } else this.replies.push(m);
    });
  }

  reply<T>(): Promise<T> {
    const queued = this.replies.shift();
    if (queued !== undefined) return Promise.resolve(queued as T);
    return new Promise((resolve) => {
      this.waiting = resolve as (reply: unknown) => void;
    });
  }

  async ask<T>(message: object): Promise<T> {
    this.child.send(message);
    return this.reply<T>();
  }

  signal(signal: NodeJS.Signals) {
    this.child.kill(signal);
  }
}

export function lockServiceSuite(backend: Backend, expected: LockServiceExpectations) {
  const runId = `test${randomBytes(3).toString('hex')}`;
  const { ttlMs } = expected;
  let cluster: Cluster;
  let nodes: NodeAddress[];
  const clients: LockClient[] = [];
  const client = async (id: string) => {
    const c = await backend.client(nodes, { requestTimeoutMs: 1000, rng: new Rng(clients.length + 1), clientId: id });
    clients.push(c);
    return c;
  };
  const lock = () => `test:${randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    cluster = await startCluster(runId, backend.nodeSpecs({}));
    nodes = cluster.nodes.map((n) => ({ name: n.name, ip: n.ip }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await removeResources({ runId });
  });

  it('starts 3 nodes, the server as PID 1 of each (so signals reach it)', async () => {
    expect(cluster.nodes).toHaveLength(3);
    for (const node of cluster.nodes) {
      const { output } = await node.exec(['cat', '/proc/1/comm']);
      expect(output.trim()).toBe(expected.serverComm);
    }
  });

  it('grants the lock with a token and the TTL as validity, and takes it back', async () => {
    const a = await client('a');
    const name = lock();
    const grant = (await a.acquire(name, { ttlMs, timeoutMs: 5000 })) as Grant;
    expect(grant).not.toBeNull();
    expect(grant.token).toBeGreaterThan(0);
    expect(grant.validityMs).toBeGreaterThan(0);
    expect(grant.validityMs).toBeLessThanOrEqual(Math.ceil(ttlMs / 1000) * 1000);
    expect(await a.release(grant)).toBe(true);
    // Released already: the client no longer holds it.
    expect(await a.release(grant)).toBe(false);
  });

  it('refuses a second holder: the other acquire fails within its timeout while the first holds', async () => {
    const [a, b] = [await client('a'), await client('b')];
    const name = lock();
    const held = (await a.acquire(name, { ttlMs, timeoutMs: 5000 })) as Grant;
    expect(held).not.toBeNull();
    const t0 = Date.now();
    expect(await b.acquire(name, { ttlMs, timeoutMs: 1500 })).toBeNull();
    const waited = Date.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(1000);
    expect(waited).toBeLessThan(1500 + 1000);
    // A holder that keeps its lease alive keeps the lock past its TTL.
    expect(await a.release(held)).toBe(true);
    const next = (await b.acquire(name, { ttlMs, timeoutMs: 5000 })) as Grant;
    expect(next.token).toBeGreaterThan(held.token as number);
    expect(await b.release(next)).toBe(true);
  });

  it('hands the lock to a waiter as soon as the holder releases', async () => {
    const [a, b] = [await client('a'), await client('b')];
    const name = lock();
    const held = (await a.acquire(name, { ttlMs, timeoutMs: 5000 })) as Grant;
    const waiter = b.acquire(name, { ttlMs, timeoutMs: 5000 });
    await sleep(300);
    const released = Date.now();
    expect(await a.release(held)).toBe(true);
    const next = (await waiter) as Grant;
    expect(next).not.toBeNull();
    expect(Date.now() - released).toBeLessThan(1000);
    await b.release(next);
  });

  it('grows tokens with every grant', async () => {
    const [a, b] = [await client('a'), await client('b')];
    const name = lock();
    const tokens: number[] = [];
    for (let i = 0; i < 6; i++) {
      const c = i % 2 === 0 ? a : b;
      const grant = (await c.acquire(name, { ttlMs, timeoutMs: 5000 })) as Grant;
      tokens.push(grant.token as number);
      expect(await c.release(grant)).toBe(true);
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as number);
  });

  it('names its leader, one of the nodes, and a new one when the leader is frozen', async () => {
    const leader = await backend.leader?.(cluster.nodes);
    expect(cluster.nodes.map((n) => n.name)).toContain(leader);
    const frozen = cluster.node(leader as string);
    await frozen.pause();
    try {
      let next: string | undefined;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
        next = await backend.leader?.(cluster.nodes);
        if (next && next !== leader) break;
      }
      expect(next).toBeDefined();
      expect(next).not.toBe(leader);
    } finally {
      await frozen.resume();
    }
    // And the lock works again once the old leader is back.
    const a = await client('a');
    const grant = (await a.acquire(lock(), { ttlMs, timeoutMs: 10_000 })) as Grant;
    expect(grant).not.toBeNull();
    await a.release(grant);
  });

  it('takes the lock from a client paused past its lease, and gives it on with a larger token', async () => {
    const name = lock();
    const paused = new ClientProcess(backend.name, nodes);
    expect(await paused.reply()).toEqual({ ready: true });
    const { grant: stale } = await paused.ask<{ grant: Grant }>({
      op: 'acquire',
      lock: name,
      opts: { ttlMs, timeoutMs: 5000 },
    });
    expect(stale).not.toBeNull();
    paused.signal('SIGSTOP');
    const pausedAt = Date.now();
    try {
      const b = await client('b');
      const next = (await b.acquire(name, { ttlMs, timeoutMs: 4 * ttlMs + 5000 })) as Grant;
      const waited = Date.now() - pausedAt;
      expect(next).not.toBeNull();
      expect(next.token).toBeGreaterThan(stale.token as number);
      // Not before the lease could have lapsed: a TTL less the renewal period (TTL/3).
      expect(waited).toBeGreaterThanOrEqual((2 * ttlMs) / 3 - 100);
      await b.release(next);
    } finally {
      paused.signal('SIGCONT');
    }
    // Back from its pause, the client no longer holds the lock: its release is refused
    // ("not held") or, if it cannot tell yet, not reported as done.
    await sleep(1000);
    const answer = await paused.ask<{ released?: boolean; error?: string }>({ op: 'release' });
    expect(answer.released).not.toBe(true);
    await paused.ask({ op: 'close' });
  });
}
