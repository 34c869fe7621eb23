/**
 * A PostgreSQL 15 server in its own image (lockchaos/postgres, built from Debian's
 * packages, with no iptables inside: its network faults come from outside, cluster/netns.ts),
 * run as PID 1 under the postgres user, and the pg clients the backend and the readiness
 * check use.
 */
import pg from 'pg';
import type { NodeSpec } from '../cluster/cluster.js';
import { POSTGRES_IMAGE } from '../cluster/docker-engine.js';
import { waitUntilReady } from './node-start.js';

export const PG_PORT = 5432;
/** Who every client logs in as, in which database: the server trusts it without a password. */
export const PG_LOGIN = { user: 'postgres', database: 'postgres' } as const;
/** The sequence whose nextval is the fencing token: a linearizable counter. */
export const TOKEN_SEQUENCE = 'lockchaos_token';

/**
 * The server. An advisory lock lives as long as the session that took it, so its lease is
 * the server's idle session timeout: a holder that says nothing for ttlMs (paused, cut off)
 * loses its session and with it the lock, which is what makes it a lease lock that a pause
 * can outlive. TCP keepalives find a peer gone without a word.
 */
export function postgresNodeSpec(name: string, ttlMs: number): NodeSpec {
  const setting = (key: string, value: string | number) => ['-c', `${key}=${value}`];
  return {
    name,
    role: 'node',
    image: POSTGRES_IMAGE,
    user: 'postgres',
    port: PG_PORT,
    command: [
      '/usr/lib/postgresql/15/bin/postgres',
      '-D',
      '/var/lib/postgresql/data',
      ...setting('listen_addresses', '*'),
      ...setting('port', PG_PORT),
      ...setting('unix_socket_directories', '/tmp'),
      ...setting('idle_session_timeout', Math.max(1, Math.round(ttlMs))),
      ...setting('tcp_keepalives_idle', 1),
      ...setting('tcp_keepalives_interval', 1),
      ...setting('tcp_keepalives_count', 3),
      ...setting('max_connections', 300),
      ...setting('log_connections', 'off'),
    ],
    // A target's node may listen elsewhere than the default port (its inventory's `port`).
    ready: (node) => waitForPostgres(node.ip, undefined, node.port),
  };
}

/**
 * A connected client, or a rejection after connectTimeoutMs. A query unanswered after
 * queryTimeoutMs is rejected by pg itself. Errors after connect are the caller's.
 */
export async function pgConnect(
  ip: string,
  connectTimeoutMs: number,
  port = PG_PORT,
  queryTimeoutMs?: number,
): Promise<pg.Client> {
  const client = new pg.Client({
    host: ip,
    port,
    ...PG_LOGIN,
    connectionTimeoutMillis: connectTimeoutMs,
    ...(queryTimeoutMs !== undefined ? { query_timeout: queryTimeoutMs } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: 1000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    client.end().catch(() => {});
    throw err;
  }
  return client;
}

/** Ready when a session answers and the token sequence exists (made here, once). */
export function waitForPostgres(ip: string, deadlineMs = 30_000, port = PG_PORT): Promise<void> {
  return waitUntilReady(`postgres at ${ip}:${port}`, deadlineMs, 100, async () => {
    const client = await pgConnect(ip, 1000, port);
    try {
      await client.query(`CREATE SEQUENCE IF NOT EXISTS ${TOKEN_SEQUENCE}`);
      return true;
    } finally {
      await client.end().catch(() => {});
    }
  });
}

/**
 * A PostgreSQL node's own wall clock (clock_timestamp() in a backend process forked from its
 * postmaster) minus this machine's, in ms: the answer against the middle of its round trip,
 * the shortest of three (the connect is not timed).
 */
export const POSTGRES_SERVER_TIME = {
  how: 'PostgreSQL clock_timestamp()',
  offsetMs: async (node: { ip: string; port: number }): Promise<number> => {
    const client = await pgConnect(node.ip, 2000, node.port, 2000);
    try {
      let best = { rtt: Number.POSITIVE_INFINITY, offset: 0 };
      for (let i = 0; i < 3; i++) {
        const t0 = Date.now();
        const { rows } = await client.query<{ ms: number }>(
          'SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 AS ms',
        );
        const t1 = Date.now();
        const server = Number(rows[0]?.ms);
        if (!Number.isFinite(server)) throw new Error(`clock_timestamp() gave ${JSON.stringify(rows[0])}`);
        if (t1 - t0 < best.rtt) best = { rtt: t1 - t0, offset: server - (t0 + t1) / 2 };
      }
      return best.offset;
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};
