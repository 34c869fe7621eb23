import { describe, expect, it } from 'vitest';
import { holds } from '../../checkers/mutual-exclusion.js';
import type { Op } from '../history/op.js';
import type { UnindexedOp } from '../history/recorder.js';
import { OpenCycle } from './cycle-ends.js';

const op = (type: Op['type'], f: string, time: number, extra: Partial<UnindexedOp> = {}): UnindexedOp => ({
  type,
  f,
  process: 2,
  time,
  ...extra,
});
const L = { key: 'lock' };

function followed(ops: UnindexedOp[]): OpenCycle {
  const cycle = new OpenCycle();
  for (const o of ops) cycle.follow(o);
  return cycle;
}

describe('OpenCycle', () => {
  it('is closed before anything and after a release completes', () => {
    expect(new OpenCycle().open).toBe(false);
    const c = followed([op('invoke', 'acquire', 1, L), op('ok', 'acquire', 2, L), op('invoke', 'release', 3, L)]);
    expect(c.open).toBe(true);
    c.follow(op('ok', 'release', 4, L));
    expect(c.open).toBe(false);
    expect(c.end(5, 'x')).toEqual([]);
  });

  it('ends an outstanding operation as info, keeping its key and value', () => {
    const c = followed([
      op('invoke', 'acquire', 1, L),
      op('ok', 'acquire', 2, { ...L, value: { token: 7 } }),
      op('invoke', 'write', 3, { key: 'store', value: [1, 2] }),
    ]);
    expect(c.end(9, 'killed')).toEqual([
      { type: 'info', f: 'write', process: 2, time: 9, key: 'store', value: [1, 2], error: 'harness: killed' },
    ]);
    expect(c.open).toBe(false);
  });

  it('ends a hold with nothing outstanding by a release of unknown outcome', () => {
    const c = followed([op('invoke', 'acquire', 1, L), op('ok', 'acquire', 2, L), op('ok', 'read', 3)]);
    expect(c.end(9, 'killed').map((o) => `${o.type} ${o.f} ${o.key}`)).toEqual([
      'invoke release lock',
      'info release lock',
    ]);
  });

  it('so that the checkers see the hold end where the harness ended it, not at the end of the test', () => {
    const before = [
      op('invoke', 'acquire', 1, L),
      op('ok', 'acquire', 2, L),
      op('invoke', 'read', 3),
      op('ok', 'read', 4),
    ];
    const c = followed(before);
    const all = [...before, ...c.end(10, 'killed')].map((o, index) => ({ ...o, index }) as Op);
    expect(holds(all)).toMatchObject([{ process: 2, start: 2, end: 10 }]);
  });
});
