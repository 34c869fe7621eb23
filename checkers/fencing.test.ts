import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Op } from '../src/history/op.js';
import { H } from '../test/unit/history-builder.js';
import { checkFencing, fencingViolations, outrankings, regressions } from './fencing.js';

/** A result as results.json stores it, as the report reads it back (Infinity becomes null). */
const stored = <T>(r: T): T => JSON.parse(JSON.stringify(r));

const S = 'S';

describe('fencing', () => {
  it('accepts tokens that grow with grants and accepted writes', () => {
    const h = new H()
      .acquire(0, 1)
      .invoke(0, 'write', S, [[1], 1])
      .ok(0, 'write', S, [[1], 1])
      .release(0)
      .acquire(1, 2)
      .invoke(1, 'write', S, [[1, 2], 2])
      .ok(1, 'write', S, [[1, 2], 2])
      .release(1);
    expect(checkFencing(h.ops, { storeKey: S, fencing: true }).valid).toBe(true);
  });

  it('catches a store that accepted an older token after a newer one', () => {
    const h = new H()
      .acquire(0, 1)
      .acquire(1, 2)
      .invoke(1, 'write', S, [[2], 2])
      .ok(1, 'write', S, [[2], 2])
      .invoke(0, 'write', S, [[1], 1])
      .ok(0, 'write', S, [[1], 1]);
    const r = checkFencing(h.ops, { storeKey: S, fencing: true });
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/accepted token 1 from process 0.*after it had accepted token 2/);
    expect(fencingViolations(stored(r))).toEqual([
      {
        kind: 'stale',
        words: 'the store accepted token 1 (op #7) after it had accepted token 2 (op #5)',
        marks: [
          { index: 5, label: 'store accepts token 2' },
          { index: 7, label: 'then accepts older token 1' },
        ],
      },
    ]);
  });

  it('catches a grant whose token did not grow (a lock service that forgot)', () => {
    const h = new H().acquire(0, 5).release(0).acquire(1, 5);
    const r = checkFencing(h.ops, { storeKey: S, fencing: false });
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/granted token 5.*not larger than token 5/);
    expect(fencingViolations(stored(r)).map((v) => [v.kind, v.words])).toEqual([
      ['regression', 'a grant with token 5 (op #5) came after a grant with token 5 (op #1)'],
    ]);
  });

  it('names a forked token source: the same token granted to two clients', () => {
    // Two primaries counting on from the same value (Sentinel failover): both grant 7.
    const h = new H().acquire(0, 6).release(0).acquire(1, 7).acquire(2, 7).release(1);
    const r = checkFencing(h.ops, { storeKey: S, fencing: true });
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/forked: 1 tokens granted twice/);
    expect(r.summary).toMatch(/token 7 was granted twice: to process 1 .* and to process 2/);
    expect(r.details).toMatchObject({ duplicatedTokens: 1 });
  });

  it('allows concurrent writes in either token order', () => {
    const h = new H()
      .invoke(1, 'write', S, [[2], 2])
      .invoke(0, 'write', S, [[1], 1])
      .ok(1, 'write', S, [[2], 2])
      .ok(0, 'write', S, [[1], 1]);
    expect(checkFencing(h.ops, { storeKey: S, fencing: true }).valid).toBe(true);
  });

  it('has nothing to say without tokens (redlock), and does not count', () => {
    const r = checkFencing(new H().acquire(0).release(0).ops, { storeKey: S, fencing: false });
    expect(r).toMatchObject({ valid: true, counts: false });
  });

  it('finds a regression exactly when a brute-force search does', () => {
    const interval = fc.record({ start: fc.nat(100), len: fc.nat(30), token: fc.nat(10) });
    fc.assert(
      fc.property(fc.array(interval, { maxLength: 12 }), fc.boolean(), (xs, strict) => {
        const ops = xs.map((x, i) => ({
          token: x.token,
          invoke: { index: 2 * i, type: 'invoke', f: 'w', process: i, time: x.start } as Op,
          completion: { index: 2 * i + 1, type: 'ok', f: 'w', process: i, time: x.start + x.len + 1 } as Op,
        }));
        const brute = ops.some((a) =>
          ops.some((b) => a.completion.time < b.invoke.time && (strict ? b.token <= a.token : b.token < a.token)),
        );
        expect(regressions(ops, strict).length > 0).toBe(brute);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('fencing: a grant that outranks a holder whose lease stands', () => {
  const grant = (token: number, validityMs = 1000) => ({ token, validityMs });
  it('names a token taken after the grant: larger than the next holder’s, while its lease stood', () => {
    const h = new H()
      .invoke(1, 'acquire', 'L')
      .invoke(0, 'acquire', 'L')
      .ok(0, 'acquire', 'L', grant(1))
      .ok(1, 'acquire', 'L', grant(2))
      .release(0)
      .release(1);
    const r = checkFencing(h.ops, { storeKey: S, fencing: true });
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/1 grants outranked a holder whose lease stood/);
    expect(r.summary).toMatch(
      /process 1 was granted token 2 .* while process 0's lease stood \(token 1, .* a stale holder's token larger than the next holder's/,
    );
    expect(fencingViolations(stored(r))[0]).toMatchObject({ kind: 'stale' });
  });

  it('leaves out a holder a fault touched, and a grant after the lease ran out', () => {
    const touched = new H()
      .invoke(0, 'acquire', 'L')
      .ok(0, 'acquire', 'L', grant(1))
      .invoke('nemesis', 'start-client-pause')
      .ok('nemesis', 'start-client-pause', undefined, { process: 0 })
      .invoke(1, 'acquire', 'L')
      .ok(1, 'acquire', 'L', grant(2));
    expect(outrankings(touched.ops)).toEqual([]);
    const lapsed = new H()
      .invoke(0, 'acquire', 'L')
      .ok(0, 'acquire', 'L', grant(1, 2))
      .invoke(1, 'acquire', 'L')
      .ok(1, 'acquire', 'L', grant(2, 2));
    expect(outrankings(lapsed.ops)).toEqual([]);
  });
});
