/**
 * The runner's read of the store after the faults healed. The store is not the system
 * under test: when it does not answer, the run lost its witness, which is a condition of
 * the run (lost updates then cannot be judged), not a crash.
 */
import type { Cluster } from '../cluster/cluster.js';
import { DATASTORE_NODE, DataStore } from '../datastore/datastore.js';
import { STORE_KEY } from '../datastore/keys.js';
import { DefiniteFailure } from '../history/definite-failure.js';
import type { Recorder } from '../history/recorder.js';
import type { RunCondition } from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import { errorMessage } from '../util/errors.js';

export async function finalRead(
  cluster: Cluster,
  config: TestConfig,
  recorder: Recorder,
): Promise<RunCondition | undefined> {
  let store: DataStore | undefined;
  try {
    // On the record whatever happens, a store that cannot be reached too (a read that
    // certainly did not happen): lost-updates judges the last read of the store, so a read
    // made during the run is never taken for the final one.
    const outcome = await recorder.perform('read', STORE_KEY, undefined, async () => {
      try {
        store = await DataStore.connect(cluster.node(DATASTORE_NODE).ip, config.requestTimeoutMs * 5);
      } catch (err) {
        throw new DefiniteFailure(`cannot connect: ${errorMessage(err).split('\n')[0]}`);
      }
      const r = await store.read(STORE_KEY);
      return r.ok ? { type: 'ok', value: r.value } : { type: 'fail', error: 'rejected' };
    });
    if (outcome.type !== 'ok') {
      return { kind: 'store-lost', message: `the data store did not answer the final read (${outcome.error})` };
    }
    return undefined;
  } finally {
    await store?.close().catch(() => {});
  }
}
