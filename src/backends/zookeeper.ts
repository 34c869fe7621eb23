/**
 * zookeeper: a 3-server ensemble and the lock recipe of the ZooKeeper documentation (what
 * Curator's InterProcessMutex does). Each acquire creates an ephemeral sequential znode
 * under /locks/<lock>, named after the owner so the client can tell it apart; the client
 * whose znode has the lowest sequence number holds the lock; every other waiter watches
 * the znode just before its own (no herd) and looks again when it goes. Release deletes
 * the znode.
 *
 * The session is the lease: its timeout is the TTL (the grant's validity is the timeout
 * the server agreed to), and if the session expires its znodes go, and with them the
 * lock. The client learns it as Curator does: the connection is SUSPENDED when lost, the
 * session LOST when the server says it expired. A released grant of a lost session is
 * "not held". The fencing token is the holder znode's czxid, the zxid of the transaction
 * that created it: zxids grow with every write, and the lowest sequence is the oldest
 * znode, so tokens grow with grants.
 */

import { errorMessage } from '../util/errors.js';
import { monotonicNow, NS_PER_MS, sleep } from '../util/monotonic-clock.js';
import {
  type AcquireOptions,
  type Backend,
  backoffMs,
  type ClientOptions,
  DefiniteFailure,
  type Grant,
  type LockClient,
  type NodeAddress,
  type ReleaseResult,
} from './backend.js';
import { newOwner } from './owner.js';
import { ZK_CLIENT_PORT, zkLeader, zkNodeSpecs } from './zookeeper-node.js';
import { ZkIndefinite, ZkSession, zookeeperMissing, zookeeperModule } from './zookeeper-session.js';

/** Znode names: `<owner>-lock-<10-digit sequence>`; the sequence orders the queue. */
const sequenceOf = (name: string) => Number(name.slice(name.lastIndexOf('-') + 1));

/** ZooKeeper paths cannot hold every character a lock name may; keep it readable. */
export const lockDir = (lock: string) => `/locks/${lock.replace(/[^\w:.-]/g, '_')}`;

/** An outcome the client could not learn; it dropped the session. Recorded as `info`. */
class Abandoned extends Error {}

interface Held {
  session: ZkSession;
  path: string;
}

class ZooKeeperLockClient implements LockClient {
  private session: ZkSession | undefined;
  private sessionTtlMs = 0;
  /** Znodes of grants not yet released, by owner. */
  private readonly held = new Map<string, Held>();
  /** Lock folders known to exist (persistent: they outlive sessions). */
  private readonly folders = new Set<string>();

  constructor(
    private readonly connect: string,
    private readonly opts: ClientOptions,
  ) {}

  /**
   * The open session if its timeout is the TTL, else a new one. A grant the workload never
   * released (it went on after an `info`) must not live on in a session that keeps beating:
   * its session is closed, so its znode goes as a crashed client's would.
   */
  private async sessionFor(ttlMs: number): Promise<ZkSession> {
    this.closeUnreleased();
    const current = this.session;
    if (current && !current.ended && this.sessionTtlMs === ttlMs) return current;
    current?.close();
    this.session = await ZkSession.open(this.connect, ttlMs, this.opts.requestTimeoutMs);
    this.sessionTtlMs = ttlMs;
    return this.session;
  }

  /**
   * After an outcome the client cannot know, with its znode possibly in the queue (or even
   * holding), it closes the session so that the znode goes, and reports the outcome unknown.
   */
  private abandon(session: ZkSession, why: string): Abandoned {
    session.close();
    return new Abandoned(why);
  }

  async acquire(lock: string, { ttlMs, timeoutMs }: AcquireOptions): Promise<Grant | null> {
    const started = monotonicNow();
    const elapsedMs = () => Number(monotonicNow() - started) / NS_PER_MS;
    const session = await this.sessionFor(ttlMs);
    const dir = lockDir(lock);
    const owner = newOwner(this.opts.clientId);
    try {
      if (!this.folders.has(dir)) await session.ensurePath(dir);
      this.folders.add(dir);
    } catch (e) {
      // Persistent parents only: whatever became of them, no lock was taken.
      throw new DefiniteFailure(`acquire: ${errorMessage(e)}`);
    }
    let path: string;
    try {
      const flags = zookeeperModule().constants.ZOO_EPHEMERAL_SEQUENTIAL as number;
      path = await session.create(`${dir}/${owner}-lock-`, owner, flags);
    } catch (e) {
      if (e instanceof DefiniteFailure) throw e;
      throw this.abandon(session, `acquire: ${errorMessage(e)}`);
    }
    const name = path.slice(dir.length + 1);

    for (let attempt = 0; ; attempt++) {
      try {
        const queue = (await session.children(dir)).sort((a, b) => sequenceOf(a) - sequenceOf(b));
        const position = queue.indexOf(name);
        const stat = position === 0 ? await session.stat(path) : undefined;
        if (stat) {
          this.held.set(owner, { session, path });
          return { lock, owner, validityMs: session.timeoutMs, token: stat.czxid };
        }
        if (position <= 0) {
          // Our znode is gone: the session expired while we waited; it may have held meanwhile.
          throw this.abandon(session, `acquire: our znode is gone (${session.ended ?? 'session lost'})`);
        }
        const remainingMs = timeoutMs - elapsedMs();
        if (remainingMs <= 0) break;
        // Wait until the znode before ours goes (or the connection or session changes).
        await this.waitForChange(session, `${dir}/${queue[position - 1]}`, remainingMs);
      } catch (e) {
        if (e instanceof Abandoned) throw e;
        // Only a lost connection, in a session still alive, is worth another look.
        if (!(e instanceof ZkIndefinite) || session.ended) {
          throw this.abandon(session, `acquire: ${errorMessage(e)}${session.ended ? ` (${session.ended})` : ''}`);
        }
        const waitMs = backoffMs(attempt, this.opts.rng, this.opts.backoffJitterMs);
        if (elapsedMs() + waitMs > timeoutMs) break;
        await sleep(waitMs);
      }
    }
    // Timed out: leave the queue; if that cannot be confirmed, drop the session.
    try {
      await session.delete(path);
    } catch (e) {
      // Our znode may still be queued, and may even hold the lock by now.
      throw this.abandon(session, `acquire timed out, and leaving the queue failed: ${errorMessage(e)}`);
    }
    return null;
  }

  private waitForChange(session: ZkSession, predecessor: string, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, timeoutMs);
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      session.whenEnded(wake);
      session.watch(predecessor, wake).then(
        (exists) => exists || wake(),
        (e) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  async release(grant: Grant): Promise<ReleaseResult> {
    const held = this.held.get(grant.owner);
    this.held.delete(grant.owner);
    // The session is gone, and its ephemeral znode with it: the client knows it no longer holds.
    if (!held) return { released: false, reason: 'no session holds this lock' };
    if (held.session.ended)
      return { released: false, reason: `the session ended (${held.session.ended}), and its ephemeral znode with it` };
    try {
      return (await held.session.delete(held.path)) || { released: false, reason: `the znode ${held.path} was gone` };
    } catch (e) {
      // Done with this lock either way: drop the session, so the znode cannot hold forever.
      held.session.close();
      throw e instanceof DefiniteFailure ? e : new Error(`release: ${errorMessage(e)}`);
    }
  }

  /** Closes the sessions of grants not yet released: their znodes go. */
  private closeUnreleased() {
    for (const h of this.held.values()) h.session.close();
    this.held.clear();
  }

  async close() {
    this.closeUnreleased();
    this.session?.close();
    this.session = undefined;
  }
}

export function zkConnectString(nodes: NodeAddress[]): string {
  return nodes.map((n) => `${n.ip}:${n.port ?? ZK_CLIENT_PORT}`).join(',');
}

export const zookeeperBackend: Backend = {
  name: 'zookeeper',
  description:
    '3-server ZooKeeper: ephemeral sequential znode, lowest holds, each waiter watches its predecessor; token = czxid',
  fencing: { supported: true },
  unavailable: zookeeperMissing,
  nodeSpecs: ({ nodes }) => zkNodeSpecs(nodes),
  client: async (nodes, opts) => new ZooKeeperLockClient(zkConnectString(nodes), opts),
  leader: (nodes) => zkLeader(nodes),
};
