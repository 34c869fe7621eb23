/**
 * postgres: PostgreSQL advisory locks. Acquire is `pg_try_advisory_lock` in the client's
 * own session, retried with the seeded backoff; release is `pg_advisory_unlock`. The lock
 * is the session's: the server frees it when the session ends, and it ends a session idle
 * for the run's TTL (idle_session_timeout), so a paused holder loses the lock without
 * knowing. The fencing token is `nextval` of a sequence taken in the same statement, while
 * the lock is held: a linearizable counter that grows with every grant.
 */
import type pg from 'pg';
import { errorMessage } from '../util/errors.js';
import { monotonicNow, sleep } from '../util/monotonic-clock.js';
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
import {
  PG_LOGIN,
  PG_PORT,
  POSTGRES_SERVER_TIME,
  pgConnect,
  postgresNodeSpec,
  TOKEN_SEQUENCE,
} from './postgres-node.js';

/** One statement: the lock, and the token only when the lock was granted. */
const TRY_LOCK = `SELECT CASE WHEN pg_try_advisory_lock(hashtext($1)) THEN nextval('${TOKEN_SEQUENCE}') END AS token`;
const UNLOCK = 'SELECT pg_advisory_unlock(hashtext($1)) AS released';

/** SQLSTATEs with which the server ends a session on its own (idle timeout, terminate, shutdown). */
const SERVER_ENDED = new Set(['57P01', '57P02', '57P03', '57P05']);

/** A session and how it ended, if it has. */
interface Session {
  client: pg.Client;
  /** Set when the connection ended: whether the server said it ended the session. */
  ended?: { byServer: boolean; why: string };
}

class PostgresLockClient implements LockClient {
  private session: Session | undefined;
  /** The session each held lock was granted in: only that session can release it. */
  private readonly held = new Map<string, Session>();

  constructor(
    private readonly node: NodeAddress,
    private readonly opts: ClientOptions,
  ) {}

  /** The live session, or a new one (nothing of a lock request has been sent before this). */
  async open(): Promise<Session> {
    if (this.session && !this.session.ended) return this.session;
    let client: pg.Client;
    try {
      const { requestTimeoutMs } = this.opts;
      client = await pgConnect(
        this.node.ip,
        Math.max(requestTimeoutMs, 1000),
        this.node.port ?? PG_PORT,
        requestTimeoutMs,
      );
    } catch (err) {
      throw new DefiniteFailure(`connect: ${errorMessage(err)}`);
    }
    const session: Session = { client };
    const end = (err?: Error & { code?: string }) => {
      session.ended ??= { byServer: SERVER_ENDED.has(err?.code ?? ''), why: err ? errorMessage(err) : 'closed' };
    };
    client.on('error', end);
    client.on('end', () => end());
    this.session = session;
    return session;
  }

  /** A query (pg's query_timeout is the request timeout); after any error the session is dropped. */
  private async query<T>(session: Session, text: string, values: unknown[]): Promise<T> {
    try {
      return (await session.client.query(text, values)).rows[0] as T;
    } catch (err) {
      // Unknown whether the server ran it: the outcome is indefinite, and the session with
      // its locks is abandoned (the server frees them when it notices).
      this.drop(session, err);
      throw err;
    }
  }

  private drop(session: Session, err: unknown) {
    session.ended ??= { byServer: false, why: errorMessage(err) };
    session.client.end().catch(() => {});
    (session.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }

  async acquire(lock: string, { ttlMs, timeoutMs }: AcquireOptions): Promise<Grant | null> {
    const started = monotonicNow();
    const owner = newOwner(this.opts.clientId);
    for (let attempt = 0; ; attempt++) {
      const session = await this.open();
      const asked = monotonicNow();
      const row = await this.query<{ token: string | null }>(session, TRY_LOCK, [lock]);
      if (row.token !== null) {
        this.held.set(lock, session);
        // Held while the session lives, and the server ends a session idle for the TTL.
        const elapsedMs = Number(monotonicNow() - asked) / 1e6;
        // A lease that ran out before the answer came has 0 ms left, not less (grantProblem).
        return { lock, owner, validityMs: Math.max(0, ttlMs - elapsedMs), token: Number(row.token) };
      }
      const waitMs = backoffMs(attempt, this.opts.rng, this.opts.backoffJitterMs);
      if (Number(monotonicNow() - started) / 1e6 + waitMs > timeoutMs) return null;
      await sleep(waitMs);
    }
  }

  async release(grant: Grant): Promise<ReleaseResult> {
    const session = this.held.get(grant.lock);
    this.held.delete(grant.lock);
    if (!session) return { released: false, reason: 'no session holds this lock' };
    // The server ended the session (idle timeout, terminate): it freed the lock with it.
    if (session.ended?.byServer)
      return { released: false, reason: `the server ended the session (${session.ended.why})` };
    // Ended on our side or by the network: the server may not know yet, and the lock may
    // still be held there until it notices. Nothing was sent: a definite failure.
    if (session.ended) throw new DefiniteFailure(`release: session lost (${session.ended.why})`);
    const row = await this.query<{ released: boolean }>(session, UNLOCK, [grant.lock]);
    return (
      row.released === true || { released: false, reason: 'pg_advisory_unlock: this session did not hold the lock' }
    );
  }

  async close() {
    if (this.session) this.drop(this.session, 'closed');
  }
}

export const postgresBackend: Backend = {
  name: 'postgres',
  description:
    'PostgreSQL 15 advisory lock held by the session (pg_try_advisory_lock), lease = idle_session_timeout = TTL; token = nextval of a sequence',
  fencing: { supported: true },
  capabilities: { serverTime: POSTGRES_SERVER_TIME },
  clientLogin: PG_LOGIN,
  nodeSpecs: ({ ttlMs = 1000 }) => [postgresNodeSpec('postgres-1', ttlMs)],
  client: async (nodes, opts) => {
    const [node] = nodes;
    if (!node) throw new Error('postgres backend needs one node');
    const client = new PostgresLockClient(node, opts);
    await client.open();
    return client;
  },
};
