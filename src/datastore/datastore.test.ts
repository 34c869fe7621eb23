import { describe, expect, it } from 'vitest';
import { DATASTORE_NODE, dataStoreNodeSpec } from './datastore.js';
import { STORE_KEY } from './keys.js';

describe('the data store node', () => {
  it('is a node of its own, labelled the store, not a node of the system under test', () => {
    const spec = dataStoreNodeSpec();
    expect(spec).toMatchObject({ name: DATASTORE_NODE, role: 'store', port: 6379 });
  });

  it('runs a Redis server without the append-only file the lock nodes keep', () => {
    const command = dataStoreNodeSpec().command;
    const argv = (typeof command === 'function' ? command({ host: (n) => n }) : (command ?? [])).join(' ');
    expect(argv).toContain('redis-server');
    expect(argv).toMatch(/--appendonly no\b/);
  });

  it("protects one register, whose key a run records (test.json's storeKey)", () => {
    expect(STORE_KEY).toBe('lockchaos:set');
  });
});
