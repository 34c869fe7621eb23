import { describe, expect, it } from 'vitest';
import { H } from '../test/unit/history-builder.js';
import { outlivedLeases } from './evidence.js';
import { outrankings } from './fencing.js';
import { extensionsIn, leaseAt, leaseEnd } from './lease.js';
import { holds, leaseLapsed } from './mutual-exclusion.js';

/** Each op is 1 ms after the one before (the builder's step). */
const grant = (validityMs: number, token?: number) => (token === undefined ? { validityMs } : { validityMs, token });
const extend = (h: H, p: number, validityMs: number) => h.invoke(p, 'extend', 'L').ok(p, 'extend', 'L', { validityMs });

describe('a lease dated from its last extension', () => {
  // Process 0 is granted 3 ms at 2 ms; its library extends it at 4 ms for 3 ms (to 7 ms);
  // process 1 is granted at 6 ms: past the grant's lease (5 ms), inside the extension's.
  const extended = () => {
    const h = new H().invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', grant(3, 1));
    extend(h, 0, 3);
    return h.invoke(1, 'acquire', 'L').ok(1, 'acquire', 'L', grant(3, 2));
  };

  it('runs from the last extension reported in the hold, not from the grant', () => {
    const h = extended();
    const [first, second] = holds(h.ops);
    const lease = leaseAt(h.ops, first!, second!.start);
    expect(lease).toMatchObject({ extension: true, validityMs: 3, index: 3 });
    expect(leaseEnd(lease!)).toBe(7_000_000);
    // Before the extension, the grant's.
    expect(leaseAt(h.ops, first!, 3_000_000)).toMatchObject({ extension: false, time: 2_000_000 });
    // The checker does not say the lease had run out by process 1's grant: it stood.
    expect(leaseLapsed(h.ops, first!, second!)).toBeUndefined();
  });

  it("says a lease had run out from its last extension's validity", () => {
    const h = new H().invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', grant(3));
    extend(h, 0, 1);
    h.invoke(1, 'acquire', 'L').ok(1, 'acquire', 'L', grant(3));
    const [first, second] = holds(h.ops);
    expect(leaseLapsed(h.ops, first!, second!)).toMatch(
      /^process 0's lease had run out: last extended at 0\.004 s \(op #3\) with 1 ms of validity, to 0\.005 s, before process 1's grant$/,
    );
    // Without the extension, from the grant, as before.
    const plain = new H().acquire(0).acquire(1);
    plain.ops[1]!.value = grant(1);
    const [a, b] = holds(plain.ops);
    expect(leaseLapsed(plain.ops, a!, b!)).toMatch(/granted with 1 ms of validity at 0\.002 s/);
  });

  it('counts a grant inside an extended lease as outranking the holder, and names the extension', () => {
    const found = outrankings(extended().ops);
    expect(found).toHaveLength(1);
    expect(found[0]?.holder).toMatchObject({ process: 0, extendedAt: 4_000_000, validityMs: 3 });
    // The same grant with no extension came after the grant's lease: not an outranking.
    const h = new H()
      .invoke(0, 'acquire', 'L')
      .ok(0, 'acquire', 'L', grant(3, 1))
      .invoke(0, 'read', 'S')
      .ok(0, 'read', 'S', [])
      .invoke(1, 'acquire', 'L')
      .ok(1, 'acquire', 'L', grant(3, 2));
    expect(outrankings(h.ops)).toEqual([]);
  });

  it('does not count a hold that its extensions kept inside its lease as outliving it', () => {
    const h = new H().invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', grant(2));
    extend(h, 0, 2);
    extend(h, 0, 2);
    h.release(0);
    expect(outlivedLeases(h.ops)).toEqual({ holds: 1, outlived: 0 });
    const bare = new H().invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', grant(2));
    bare.invoke(0, 'read', 'S').ok(0, 'read', 'S', []).invoke(0, 'read', 'S').ok(0, 'read', 'S', []).release(0);
    expect(outlivedLeases(bare.ops)).toEqual({ holds: 1, outlived: 1 });
  });

  it("keeps a failed extension with the library's words, and renews nothing by it", () => {
    const h = new H().invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', grant(3));
    h.invoke(0, 'extend', 'L').fail(0, 'extend', 'L', undefined, 'NOSCRIPT');
    h.invoke(1, 'acquire', 'L').ok(1, 'acquire', 'L', grant(3));
    const [first, second] = holds(h.ops);
    expect(extensionsIn(h.ops, first!)).toEqual([{ process: 0, time: 4_000_000, index: 3, error: 'NOSCRIPT' }]);
    expect(leaseAt(h.ops, first!, second!.start)).toMatchObject({ extension: false });
    expect(leaseLapsed(h.ops, first!, second!)).toMatch(/granted with 3 ms/);
  });
});
