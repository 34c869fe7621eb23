import type { Etcd3 } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { sleep } from '../util/monotonic-clock.js';
import { Rng } from '../util/rng.js';
import { EtcdLockClient } from './etcd.js';

/**
 * An etcd that grants a 2 s lease at once, answers the lock's transaction `txnMs` late,
 * and never opens a keepalive stream (so nothing renews the lease meanwhile).
 */
function slowTxnEtcd(txnMs: number): Etcd3 {
  return {
    leaseClient: {
      leaseGrant: async () => ({ ID: '1', TTL: '2' }),
      leaseKeepAlive: () => new Promise(() => {}),
      leaseRevoke: async () => ({}),
    },
    kv: {
      txn: async () => {
        await sleep(txnMs);
        return { succeeded: true, header: { revision: '5' } };
      },
    },
    close: () => {},
  } as unknown as Etcd3;
}

describe('etcd lock client', () => {
  it("gives the lease's validity as what is left once the grant is answered, not from the txn's send", async () => {
    const client = new EtcdLockClient(slowTxnEtcd(400), {
      requestTimeoutMs: 1000,
      rng: new Rng(1),
      clientId: 'c0',
    });
    const grant = await client.acquire('L', { ttlMs: 2000, timeoutMs: 1000 });
    await client.close();
    expect(grant?.token).toBe(5);
    // Granted at about 0 ms, answered at 400 ms or later: at most 1.6 s of the 2 s are left
    // (counted from the txn's send, it was the whole 2 s).
    expect(grant?.validityMs).toBeLessThanOrEqual(1600);
    expect(grant?.validityMs).toBeGreaterThan(0);
  });
});
