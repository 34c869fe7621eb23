/**
 * lock-set, as in Jepsen's etcd lock-set: under the lock, read the set from the store,
 * hold for a while, write the set plus one new element, release. The final read (after
 * the nemesis heals) must contain every element whose write was acknowledged.
 *
 * Store operations on the history, key = the store key:
 *   read           completion value: the set (an array; null before the first write)
 *   write          value: the new set (unfenced) or [set, token] (fenced); the new
 *                  element is always the last one of the set (checkers/op-values.ts)
 * A stale token is answered "rejected": recorded as `fail`, since nothing was applied.
 */

import { evidenceChecker } from '../checkers/evidence.js';
import { fencingChecker } from '../checkers/fencing.js';
import { lockLinearizableChecker, storeLinearizableChecker } from '../checkers/linearizable/lock-and-store.js';
import { lostUpdatesChecker } from '../checkers/lost-updates.js';
import { mutualExclusionChecker } from '../checkers/mutual-exclusion.js';
import { encodeWrite } from '../checkers/op-values.js';
import { perfChecker } from '../checkers/perf.js';
import type { Grant } from '../src/backends/backend.js';
import type { DataStore } from '../src/datastore/datastore.js';
import { sleep } from '../src/util/monotonic-clock.js';
import { recordAcquire, recordRelease, think } from './cycle.js';
import type { ClientContext, Workload } from './workload.js';

/** A client's context with the data store it uses, said once for the loop. */
type StoreContext = ClientContext & { store: DataStore };

/** Element n of client w: unique across clients without coordination. */
const element = (ctx: ClientContext, n: number) => n * ctx.opts.concurrency + ctx.client;

export const lockSetWorkload: Workload = {
  name: 'lock-set',
  description: 'under the lock: read a set from the store, hold, write it back with one new element',
  usesStore: true,
  checkers: [
    mutualExclusionChecker,
    lockLinearizableChecker,
    lostUpdatesChecker,
    fencingChecker,
    storeLinearizableChecker,
    evidenceChecker({ writes: true }),
    perfChecker,
  ],
  async client(base) {
    const { store } = base;
    if (!store) throw new Error('lock-set uses the data store: the worker connects it (usesStore)');
    const ctx: StoreContext = { ...base, store };
    for (let n = 0; !ctx.stop.aborted; ) {
      const grant = await recordAcquire(ctx);
      if (grant && (await holdAndAdd(ctx, grant, element(ctx, n++)))) await recordRelease(ctx, grant);
      await think(ctx, grant !== null);
    }
  },
};

/**
 * Under the lock: read, hold, write the set plus `added`. False when an operation ended
 * as `info`: the client then has a fresh process number, and the old one's grant is
 * abandoned (it expires with its lease), not released.
 */
async function holdAndAdd(ctx: StoreContext, grant: Grant, added: number): Promise<boolean> {
  const { opts, recorder, store } = ctx;
  const token = opts.fencing ? grant.token : undefined;
  let current: number[] | null = null;
  const read = await recorder.perform('read', opts.storeKey, undefined, async () => {
    const r = await store.read(opts.storeKey, token);
    if (!r.ok) return { type: 'fail', error: 'rejected: stale token' };
    current = (r.value as number[] | null) ?? [];
    return { type: 'ok', value: r.value };
  });
  if (read.type === 'info') return false;
  if (current === null) return true; // rejected: nothing to write, release
  // Read and not yet written: a holder paused here writes a set it read before the handover.
  await ctx.point?.('in-hold');
  await sleep(opts.holdMs);
  const next = [...(current as number[]), added];
  const value = encodeWrite(next, opts.fencing, token);
  const write = await recorder.perform('write', opts.storeKey, value, async () =>
    (await store.write(opts.storeKey, next, token)) ? { type: 'ok' } : { type: 'fail', error: 'rejected: stale token' },
  );
  return write.type !== 'info';
}
