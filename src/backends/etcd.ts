/**
 * etcd: a 3-member cluster. Acquire grants a lease of the TTL (whole seconds, at least 1:
 * etcd leases are in seconds, and etcd may raise a TTL to its minimum; the grant records
 * the TTL etcd really gave), keeps it alive, and retries with the seed's backoff a
 * transaction `if create_revision(lock) == 0 then put(lock, owner, lease)` until it
 * succeeds or the acquire times out. The fencing token is the lock key's create revision:
 * the revision in the header of the transaction that created it, which grows with every
 * grant (etcd's revision is linearizable and never reused). Release deletes the key only if
 * its create revision is still ours, then revokes the lease.
 *
 * The etcd3 client's hidden retries and circuit breakers are off (no-op cockatiel
 * policies): every request is sent once and its outcome recorded as it was observed.
 */

import { noop } from 'cockatiel';
import type * as EtcdPackage from 'etcd3';
import type { Etcd3 } from 'etcd3';
import { errorMessage } from '../util/errors.js';
import { monotonicNow, NS_PER_MS, sleep } from '../util/monotonic-clock.js';
import { requirePackage } from '../util/require-package.js';
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
import { KeptLease } from './etcd-lease.js';
import { ETCD_CLIENT_PORT, etcdLeader, etcdNodeSpecs } from './etcd-node.js';
import { newOwner } from './owner.js';

/** By require: a client worker's start (util/require-package.ts). */
const { ClientClosedError, Etcd3: EtcdClient, EtcdLeaseInvalidError } = requirePackage<typeof EtcdPackage>('etcd3');

/** etcd leases are whole seconds: the TTL asked for a ttlMs lock. */
export const leaseTtlSeconds = (ttlMs: number) => Math.max(1, Math.ceil(ttlMs / 1000));

/**
 * DefiniteFailure when the request certainly had no effect: it never left the client (no
 * connection), the client was closed, or etcd refused it for a lease that no longer exists
 * (a transaction is applied whole or not at all). Anything else (a deadline, a dropped
 * connection, "request timed out", "leader changed") may have been applied: left indefinite.
 */
export function classifyEtcdError(err: unknown): Error {
  const message = errorMessage(err);
  if (err instanceof ClientClosedError || err instanceof EtcdLeaseInvalidError) return new DefiniteFailure(message);
  if (/No connection established/i.test(message)) return new DefiniteFailure(message);
  return err instanceof Error ? err : new Error(message);
}

const key = (lock: string) => Buffer.from(lock);

export class EtcdLockClient implements LockClient {
  /** Leases of grants not yet released, by owner. */
  private readonly leases = new Map<string, KeptLease>();

  constructor(
    private readonly etcd: Etcd3,
    private readonly opts: ClientOptions,
  ) {}

  private get deadline() {
    return { deadline: Date.now() + this.opts.requestTimeoutMs };
  }

  /**
   * A grant the workload never released (it went on after an `info`) must not be kept alive
   * forever: stop renewing it, so it expires at its TTL like a crashed client's lock.
   */
  private abandonUnreleased() {
    for (const lease of this.leases.values()) lease.stop();
    this.leases.clear();
  }

  async acquire(lock: string, { ttlMs, timeoutMs }: AcquireOptions): Promise<Grant | null> {
    this.abandonUnreleased();
    const started = monotonicNow();
    const owner = newOwner(this.opts.clientId);
    let lease: KeptLease;
    try {
      lease = await KeptLease.grant(this.etcd.leaseClient, leaseTtlSeconds(ttlMs), this.opts.requestTimeoutMs);
    } catch (err) {
      // A lease alone takes no lock: whatever became of the grant, the lock was not taken.
      throw new DefiniteFailure(`lease grant: ${errorMessage(err)}`);
    }
    for (let attempt = 0; ; attempt++) {
      let succeeded: boolean;
      let revision: string;
      try {
        const res = await this.etcd.kv.txn(
          {
            compare: [{ key: key(lock), target: 'Create', result: 'Equal', create_revision: 0 }],
            success: [{ request_put: { key: key(lock), value: Buffer.from(owner), lease: lease.id } }],
          },
          this.deadline,
        );
        succeeded = res.succeeded;
        revision = res.header.revision;
      } catch (err) {
        const classified = classifyEtcdError(err);
        if (classified instanceof DefiniteFailure) await lease.revoke(this.opts.requestTimeoutMs).catch(() => {});
        // Otherwise the put may have happened: stop renewing, so that it expires with the lease.
        else lease.stop();
        throw classified;
      }
      if (succeeded) {
        this.leases.set(owner, lease);
        // What is left of the lease once the answer came, as every backend counts it: from
        // the txn's send it read longer by the txn's own time (600 ms on a loaded machine),
        // and the fencing checker saw a lease that stood when it had lapsed. A lease that
        // ran out before the answer has 0 ms left, not less (grantProblem).
        const validityMs = Math.max(0, lease.validityFrom(monotonicNow()));
        return { lock, owner, validityMs, token: Number(revision) };
      }
      const waitMs = backoffMs(attempt, this.opts.rng, this.opts.backoffJitterMs);
      if (Number(monotonicNow() - started) / NS_PER_MS + waitMs > timeoutMs) {
        // Every attempt certainly failed: the lease holds nothing; give it back.
        await lease.revoke(this.opts.requestTimeoutMs).catch(() => {});
        return null;
      }
      await sleep(waitMs);
    }
  }

  async release(grant: Grant): Promise<ReleaseResult> {
    const lease = this.leases.get(grant.owner);
    this.leases.delete(grant.owner);
    let released: boolean;
    try {
      const res = await this.etcd.kv.txn(
        {
          compare: [{ key: key(grant.lock), target: 'Create', result: 'Equal', create_revision: grant.token }],
          success: [{ request_delete_range: { key: key(grant.lock) } }],
        },
        this.deadline,
      );
      released = res.succeeded;
    } catch (err) {
      // Whatever happened, this client is done with the lock: let the lease expire.
      lease?.stop();
      throw classifyEtcdError(err);
    }
    // The key is gone (or was not ours); the lease has nothing left to keep. A revoke that
    // fails changes nothing: the lease, no longer renewed, expires at its TTL.
    await lease?.revoke(this.opts.requestTimeoutMs).catch(() => {});
    return (
      released || { released: false, reason: "txn compare failed: the key's create revision is no longer the grant's" }
    );
  }

  async close() {
    this.abandonUnreleased();
    this.etcd.close();
  }
}

export function etcdClient(nodes: NodeAddress[], requestTimeoutMs: number): Etcd3 {
  return new EtcdClient({
    hosts: nodes.map((n) => `http://${n.ip}:${n.port ?? ETCD_CLIENT_PORT}`),
    // No hidden retries, no circuit breaker: one request, one observed outcome.
    faultHandling: { host: () => noop, global: noop },
    dialTimeout: requestTimeoutMs,
    defaultCallOptions: (ctx) => (ctx.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
  });
}

export const etcdBackend: Backend = {
  name: 'etcd',
  description:
    '3-member etcd: lease of the TTL kept alive + create-if-absent transaction; token = the lock key create revision',
  fencing: { supported: true },
  nodeSpecs: ({ nodes }) => etcdNodeSpecs(nodes),
  client: async (nodes, opts) => new EtcdLockClient(etcdClient(nodes, opts.requestTimeoutMs), opts),
  leader: (nodes) => etcdLeader(nodes),
};
