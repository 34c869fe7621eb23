import { describe, expect, it } from 'vitest';
import { faultWindows } from '../../checkers/fault-windows.js';
import type { Op } from '../history/op.js';
import { type Stall, stallsBehindOverlaps, stallsLine, unaskedStalls } from './machine-stalls.js';

const MS = 1e6;

/**
 * The overlap an acceptance campaign found on a loaded machine (redlock, no fault yet):
 * process 0 granted at 777 ms with 913 ms of validity, released at 1,843 ms; process 1
 * granted at 1,740 ms. `extra`: nemesis operations to add.
 */
function history(extra: Omit<Op, 'index'>[] = []): Op[] {
  const ops: Omit<Op, 'index'>[] = [
    { process: 0, type: 'invoke', f: 'acquire', key: 'L', time: 45 * MS },
    { process: 1, type: 'invoke', f: 'acquire', key: 'L', time: 445 * MS },
    { process: 0, type: 'ok', f: 'acquire', key: 'L', value: { validityMs: 913 }, time: 777 * MS },
    { process: 1, type: 'ok', f: 'acquire', key: 'L', value: { validityMs: 943 }, time: 1740 * MS },
    { process: 0, type: 'invoke', f: 'release', key: 'L', time: 1843 * MS },
    { process: 1, type: 'invoke', f: 'release', key: 'L', time: 1843 * MS },
    { process: 1, type: 'ok', f: 'release', key: 'L', time: 1944 * MS },
    { process: 0, type: 'fail', f: 'release', key: 'L', time: 1950 * MS, error: 'not held' },
    ...extra,
  ];
  return ops.sort((a, b) => a.time - b.time).map((op, index) => ({ ...op, index }) as Op);
}

const stall = (process: number, fromMs: number, toMs: number): Stall => ({
  process,
  fromNs: fromMs * MS,
  toNs: toMs * MS,
});

const conditions = (h: Op[], stalls: Stall[]) => stallsBehindOverlaps(h, unaskedStalls(stalls, faultWindows(h)), 1000);

describe('stallsBehindOverlaps', () => {
  it('a holder the machine stalled past its lease, no fault on it: the overlap is the harness’s', () => {
    const found = conditions(history(), [stall(0, 790, 1740)]);
    expect(found).toEqual([
      {
        kind: 'machine-stall',
        message: expect.stringMatching(
          /^the machine stalled process 0 for 950 ms at 0\.790 s while it acquired or held the lock, with no fault on it: its hold outlived its lease into process 1's \(op #\d+\)/,
        ),
      },
    ]);
  });

  it('an etcd-like grant whose lease lapsed while its stalled client waited (validity 0): the stall before the grant counts', () => {
    const lapsed = history().map((op) =>
      op.process === 0 && op.f === 'acquire' && op.type === 'ok' ? { ...op, value: { validityMs: 0 } } : op,
    );
    // Held 1,066 ms past a lease that ended at its grant; the worker stalled 1,100 ms while it waited.
    expect(conditions(lapsed, [stall(0, 100, 1200)]).map((c) => c.kind)).toEqual(['machine-stall']);
    expect(conditions(lapsed, [stall(0, 100, 600)])).toEqual([]);
  });

  it('a stall before a grant whose lease runs from the grant explains nothing: the pause in the hold does', () => {
    // A session lock's wait (advisory-lock): stalled 500 ms before its grant; the hold then
    // outlived its lease under a client pause, which is the nemesis's.
    const pause = history([
      { process: 'nemesis', type: 'invoke', f: 'start-client-pause', time: 800 * MS },
      { process: 'nemesis', type: 'ok', f: 'start-client-pause', value: { client: 0, process: 0 }, time: 805 * MS },
      { process: 'nemesis', type: 'invoke', f: 'stop-client-pause', time: 1735 * MS },
      { process: 'nemesis', type: 'ok', f: 'stop-client-pause', time: 1738 * MS },
    ]);
    expect(conditions(pause, [stall(0, 200, 700)])).toEqual([]);
    // The same stall after the grant, no fault: the harness's.
    expect(conditions(history(), [stall(0, 800, 1300)]).map((c) => c.kind)).toEqual(['machine-stall']);
  });

  it('a stall too short to carry the hold past its lease explains nothing', () => {
    // Without 100 ms of stall the hold still ends at 1,743 ms, past the lease's 1,690 ms.
    expect(conditions(history(), [stall(0, 1000, 1100)])).toEqual([]);
  });

  it('a stall of the other process, or none at all, explains nothing', () => {
    expect(conditions(history(), [stall(1, 790, 1740)])).toEqual([]);
    expect(conditions(history(), [])).toEqual([]);
  });

  it('a stall under a fault on that client is the nemesis’s pause (a client pause, a holder kept by a node fault)', () => {
    const pause = history([
      { process: 'nemesis', type: 'invoke', f: 'start-client-pause', time: 780 * MS },
      { process: 'nemesis', type: 'ok', f: 'start-client-pause', value: { client: 0, process: 0 }, time: 785 * MS },
      { process: 'nemesis', type: 'invoke', f: 'stop-client-pause', time: 1735 * MS },
      { process: 'nemesis', type: 'ok', f: 'stop-client-pause', time: 1738 * MS },
    ]);
    expect(conditions(pause, [stall(0, 790, 1740)])).toEqual([]);
    const kept = history([
      { process: 'nemesis', type: 'invoke', f: 'start-kill-node', time: 780 * MS },
      {
        process: 'nemesis',
        type: 'ok',
        f: 'start-kill-node',
        value: { nodes: ['n1'], holder: { client: 0, process: 0 } },
        time: 785 * MS,
      },
    ]);
    expect(conditions(kept, [stall(0, 790, 1740)])).toEqual([]);
  });

  it('a hold within its lease (no overlap to explain) gives nothing, stall or not', () => {
    const h = history().filter((op) => !(op.process === 1 && op.f === 'acquire' && op.type === 'ok'));
    expect(
      conditions(
        h.map((op, index) => ({ ...op, index })),
        [stall(0, 790, 1740)],
      ),
    ).toEqual([]);
  });
});

describe('stallsLine', () => {
  it('counts the stalls no fault explains and names the longest', () => {
    expect(stallsLine([stall(0, 790, 1740), stall(2, 100, 400)])).toBe(
      'the machine stalled client workers 2 times with no fault on them (longest 950 ms, process 0 at 0.790 s)',
    );
    expect(stallsLine([])).toBeUndefined();
  });
});
