/**
 * What every lock service with leases and fencing tokens must do on its real cluster,
 * shared by the etcd and ZooKeeper suites: start, take and give back the lock, refuse a
 * second holder, grow its tokens, name its leader, and take the lock away from a client
 * that stopped (a real process, SIGSTOPped) once its lease ends, giving it to the next
 * client with a larger token. And the node faults, through the nemesis itself: a killed
 * member is gone until restarted, an isolated one cannot reach its peers until healed,
 * and the majority grants the lock meanwhile.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Backend, Grant, LockClient, NodeAddress } from '../../src/backends/backend.js';
import { type Cluster, type NodeHandle, startCluster } from '../../src/cluster/cluster.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { nodeFaultContext } from '../../src/nemesis/context.js';
import { NodeKill } from '../../src/nemesis/kinds/kill-node.js';
import { Partition } from '../../src/nemesis/kinds/partition.js';
import { NodePause } from '../../src/nemesis/kinds/pause-node.js';
import type { FaultStart } from '../../src/nemesis/nemesis.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { packageRoot } from '../../src/util/paths.js';
import { Rng } from '../../src/util/rng.js';
import { expectFencingHoldsUnderPauses, runAndRead } from './support.js';

export interface LockServiceExpectations {
  /** The server's process name, PID 1 of every node. */
  serverComm: string;
  /** Bytes the server answers on its client port (to tell a running server from a frozen one). */
  probe: string;
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

/** Does a TCP connection from inside `from` to `to`'s client port open within 2 s? */
async function reaches(from: NodeHandle, to: NodeHandle): Promise<boolean> {
  const r = await from.exec(['timeout', '2', 'bash', '-c', `exec 3<>/dev/tcp/${to.ip}/${to.port}`]);
  return r.exitCode === 0;
}

/**
 * Does the server answer `probe` on its client port within a second? (A frozen server's
 * kernel still accepts the connection: only an answer shows the server is running.)
 */
function answers(node: NodeHandle, probe: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: node.ip, port: node.port });
    const timer = setTimeout(() => done(false), 1000);
    function done(ok: boolean) {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    }
    socket.once('connect', () => socket.write(probe));
    socket.once('data', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Ask for the lock until it is granted, for up to 30 s. A request sent to a member that is
 * cut off, or still catching up after a fault, fails: the client reports it and does not
 * retry (that is what the history must see), so the test asks again.
 */
export async function grantAskingAgain(
  acquire: (opts: { ttlMs: number; timeoutMs: number }) => Promise<Grant | null | undefined>,
  timeoutMs: number,
  ttlMs: number,
): Promise<Grant> {
  const errors: string[] = [];
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(200)) {
    try {
      const grant = await acquire({ ttlMs, timeoutMs });
      if (grant) return grant;
      errors.push('not granted');
    } catch (err) {
      errors.push(String(err));
    }
  }
  return expect.fail(`no grant within 30 s; last answers: ${errors.slice(-3).join('; ')}`);
}

/**
 * Give the lock back, if the member asked answers. A release sent to a member that is cut
 * off or catching up fails like any request; the lease then ends by itself, which is all
 * the tests that call this need.
 */
async function releaseQuietly(client: LockClient, grant: Grant): Promise<void> {
  await client.release(grant).catch(() => {});
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
    // Released already: the client no longer holds it, and says why in its own words.
    expect(await a.release(grant)).toMatchObject({ released: false, reason: expect.stringMatching(/\S/) });
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

  const faultContext = () => nodeFaultContext(runId, cluster.nodes, { nemesisIntervalS: 2, ttlMs });

  it('names its leader, one of the nodes, and a new one when pause-node:leader freezes it', async () => {
    const leader = await backend.leader?.(cluster.nodes);
    expect(cluster.nodes.map((n) => n.name)).toContain(leader);
    const pause = new NodePause({ ...faultContext(), leader: async () => backend.leader?.(cluster.nodes) }, 'leader');
    const started = (await pause.start(new Rng(2))) as FaultStart;
    expect((started.value as { nodes: string[] }).nodes).toEqual([leader]);
    expect(await answers(cluster.node(leader as string), expected.probe)).toBe(false); // frozen: no answer
    try {
      let next: string | undefined;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await sleep(250)) {
        next = await backend.leader?.(cluster.nodes);
        if (next && next !== leader) break;
      }
      expect(next).toBeDefined();
      expect(next).not.toBe(leader);
    } finally {
      await pause.stop();
    }
    // And the lock works again once the old leader is back.
    const a = await client('a');
    const name = lock();
    await releaseQuietly(a, await grantAskingAgain((opts) => a.acquire(name, opts), 10_000, ttlMs));
  });

  /** Some client gets the lock within 30 s (grantAskingAgain). */
  const grantsMeanwhile = async () => {
    const c = await client('during-fault');
    const name = lock();
    await releaseQuietly(c, await grantAskingAgain((opts) => c.acquire(name, opts), 5000, ttlMs));
  };

  it('kill-node: a killed member is gone until restarted, and the majority grants meanwhile', async () => {
    const kill = new NodeKill(faultContext(), 'one');
    const started = (await kill.start(new Rng(3))) as FaultStart;
    const [name] = (started.value as { nodes: string[] }).nodes;
    const killed = cluster.node(name as string);
    try {
      expect(await answers(killed, expected.probe)).toBe(false);
      await grantsMeanwhile();
      expect(await answers(killed, expected.probe)).toBe(false);
    } finally {
      await kill.stop();
    }
    for (const deadline = Date.now() + 20_000; !(await answers(killed, expected.probe)) && Date.now() < deadline; )
      await sleep(200);
    expect(await answers(killed, expected.probe)).toBe(true);
    await grantsMeanwhile();
  });

  it('partition: an isolated member cannot reach its peers until healed, and the majority grants meanwhile', async () => {
    const [a, b, c] = cluster.nodes as [NodeHandle, NodeHandle, NodeHandle];
    expect(await reaches(a, b)).toBe(true);
    const partition = new Partition(faultContext(), 'isolate-one');
    const started = (await partition.start(new Rng(1))) as FaultStart;
    const drops = (started.value as { drops: Record<string, string[]> }).drops;
    const lonely = cluster.node(Object.entries(drops).find(([, d]) => d.length === 2)?.[0] as string);
    const [other, third] = [a, b, c].filter((n) => n !== lonely) as [NodeHandle, NodeHandle];
    try {
      expect(await reaches(lonely, other)).toBe(false);
      expect(await reaches(other, lonely)).toBe(false);
      expect(await reaches(other, third)).toBe(true);
      await grantsMeanwhile();
    } finally {
      await partition.stop();
    }
    expect(await reaches(other, lonely)).toBe(true);
    expect((await lonely.exec(['iptables', '-S', 'INPUT'])).output).not.toContain(runId);
    await grantsMeanwhile(); // and after, once the member has caught up
  });

  it('takes the lock from a client paused past its lease, and gives it on with a larger token', async () => {
    const name = lock();
    const paused = new ClientProcess(backend.name, nodes);
    expect(await paused.reply()).toEqual({ ready: true });
    const stale = await grantAskingAgain(
      async (opts) => {
        const answer = await paused.ask<{ grant?: Grant | null; error?: string }>({ op: 'acquire', lock: name, opts });
        if (answer.error) throw new Error(answer.error);
        return answer.grant;
      },
      5000,
      ttlMs,
    );
    paused.signal('SIGSTOP');
    const pausedAt = Date.now();
    try {
      const b = await client('b');
      const next = await grantAskingAgain((opts) => b.acquire(name, opts), 4 * ttlMs + 5000, ttlMs);
      const waited = Date.now() - pausedAt;
      expect(next.token).toBeGreaterThan(stale.token as number);
      // Not before the lease could have lapsed: a TTL less the renewal period (TTL/3).
      expect(waited).toBeGreaterThanOrEqual((2 * ttlMs) / 3 - 100);
      await releaseQuietly(b, next);
    } finally {
      paused.signal('SIGCONT');
    }
    // Back from its pause, the client no longer holds the lock: its release is refused
    // ("not held") or, if it cannot tell yet, not reported as done.
    await sleep(1000);
    const answer = await paused.ask<{ released?: unknown; error?: string }>({ op: 'release' });
    expect(answer.released).not.toBe(true);
    await paused.ask({ op: 'close' });
  });
}

/**
 * Whole runs through the CLI on a backend with fencing tokens: valid without faults both
 * ways, and the data safe with fencing under client pauses. ttlMs: a lease most pauses
 * (0.8-2x of it) outlive.
 */
export function endToEndSuite(backend: string, ttlMs: number) {
  const store = mkdtempSync(join(tmpdir(), `lockchaos-${backend}-`));

  // Both ways at once, each in a store of its own (the latest link is per store): a lock
  // that is safe stays valid also with a second cluster beside it on the machine.
  it('is valid without faults, fencing on and off (two runs at once)', async () => {
    const runs = await Promise.all(
      ['on', 'off'].map((fencing) =>
        runAndRead(join(store, fencing), [
          ...['--backend', backend, '--workload', 'lock-set', '--nemesis', 'none', '--fencing', fencing],
          ...['--time-limit', '5', '--seed', '1'],
        ]),
      ),
    );
    for (const r of runs) {
      expect(r.stdout).toMatch(/lost-updates\s+valid/);
      // Counted unfenced; fenced, it is shown (fencing decides): either way no overlap.
      expect(r.stdout).toMatch(/mutual-exclusion\s+(?:valid|shown)\s+\d+ holds, none overlapping/);
      expect(r.code).toBe(0);
      expect(r.left).toEqual([]);
    }
  });

  it('keeps the data safe with fencing under client pauses, while showing the overlapping beliefs', async () => {
    await expectFencingHoldsUnderPauses(store, ['--backend', backend, '--ttl', String(ttlMs), '--seed', '1']);
  });
}
