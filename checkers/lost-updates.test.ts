import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Op } from '../src/history/op.js';
import { H } from '../test/unit/history-builder.js';
import { checkLostUpdates, lostUpdatesViolations, lostUpdatesWithoutFinalRead } from './lost-updates.js';
import { decodeWrite } from './op-values.js';

/** A result as results.json stores it, as the report reads it back (Infinity becomes null). */
const stored = <T>(r: T): T => JSON.parse(JSON.stringify(r));

const S = 'S';

describe('lost updates', () => {
  it('accepts when every acknowledged add is in the final read', () => {
    const h = new H()
      .invoke(0, 'write', S, [1])
      .ok(0, 'write', S, [1])
      .invoke(1, 'write', S, [1, 2])
      .ok(1, 'write', S, [1, 2])
      .invoke(2, 'read', S)
      .ok(2, 'read', S, [1, 2]);
    const r = checkLostUpdates(h.ops, S);
    expect(r.valid).toBe(true);
    expect(r.details).toMatchObject({ acknowledged: 2, lost: 0 });
  });

  it('names a lost element, its writer and the write that dropped it', () => {
    // Both read [], both write: the second write drops the first element.
    const h = new H()
      .invoke(0, 'write', S, [10])
      .ok(0, 'write', S, [10])
      .invoke(1, 'write', S, [11])
      .ok(1, 'write', S, [11])
      .invoke(2, 'read', S)
      .ok(2, 'read', S, [11]);
    const r = checkLostUpdates(h.ops, S);
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/element 10, acknowledged to process 0.*overwritten by process 1/);
    const [v, ...more] = lostUpdatesViolations(stored(r));
    expect(more).toEqual([]);
    expect(v?.words).toMatch(
      /^lost element 10, acknowledged to process 0 at .* \(op #1\), overwritten by process 1's write at .* \(op #3\)$/,
    );
    expect(v?.marks).toEqual([
      { index: 1, label: 'writes 10 (acknowledged)' },
      { index: 3, label: 'overwrites the set without 10' },
    ]);
    // A killed run's prefix: its last read is no final read, so nothing can be called lost.
    expect(lostUpdatesWithoutFinalRead(r)).toMatchObject({
      valid: 'unknown',
      counts: true,
      summary: expect.stringMatching(/^no final read: .* \(2 acknowledged adds recorded\)$/),
    });
    // A store that did not answer the final read: said so, not a final read claimed.
    expect(lostUpdatesWithoutFinalRead(r, 'the data store did not answer it').summary).toBe(
      'no final read: the data store did not answer it, so what the store kept cannot be told (2 acknowledged adds recorded)',
    );
  });

  it('takes no read during the run for the final read when the last read failed', () => {
    // The store lost at the end: [10] was read during the run, 11 acknowledged after it.
    const h = new H()
      .invoke(0, 'write', S, [10])
      .ok(0, 'write', S, [10])
      .invoke(1, 'read', S)
      .ok(1, 'read', S, [10])
      .invoke(1, 'write', S, [10, 11])
      .ok(1, 'write', S, [10, 11])
      .invoke(2, 'read', S)
      .fail(2, 'read', S, 'cannot connect');
    expect(checkLostUpdates(h.ops, S)).toMatchObject({
      valid: 'unknown',
      summary:
        'no final read: the data store did not answer it, so what the store kept cannot be told (2 acknowledged adds recorded)',
    });
  });

  it('does not count unacknowledged (info or rejected) writes as lost', () => {
    const h = new H()
      .invoke(0, 'write', S, [[10], 3])
      .info(0, 'write', S, [[10], 3])
      .invoke(1, 'write', S, [[11], 2])
      .fail(1, 'write', S, [[11], 2], 'rejected')
      .invoke(4, 'read', S)
      .ok(4, 'read', S, []);
    expect(checkLostUpdates(h.ops, S).valid).toBe(true);
  });

  it('reads the fenced write shape [set, token]', () => {
    const h = new H()
      .invoke(0, 'write', S, [[10], 1])
      .ok(0, 'write', S, [[10], 1])
      .invoke(4, 'read', S)
      .ok(4, 'read', S, []);
    expect(checkLostUpdates(h.ops, S).valid).toBe(false);
  });

  it('finds an element in a later write as a Set would: -0 is 0, NaN is NaN, "1" is not 1, large and small numbers alike', () => {
    // Each element is written, kept by the next write (so not the overwriting one), then lost.
    for (const [element, same, other] of [
      [0, -0, 1],
      [Number.NaN, Number.NaN, 1],
      ['1', '1', 1],
      [2 ** 40, 2 ** 40, 2 ** 40 + 1],
      [-3, -3, 3],
      [1.5, 1.5, 1],
    ] as const) {
      const h = new H()
        .invoke(0, 'write', S, [element])
        .ok(0, 'write', S, [element])
        .invoke(1, 'write', S, [same, 7])
        .ok(1, 'write', S, [same, 7])
        .invoke(2, 'write', S, [other, 8])
        .ok(2, 'write', S, [other, 8])
        .invoke(3, 'read', S)
        .ok(3, 'read', S, [other, 8]);
      const r = checkLostUpdates(h.ops, S);
      const first = (r.details as { lostElements: { element: unknown; overwriteIndex?: number }[] }).lostElements[0];
      expect(first.overwriteIndex, String(element)).toBe(5);
    }
  });

  it('flags an element in the final read that nobody wrote', () => {
    const h = new H().invoke(4, 'read', S).ok(4, 'read', S, [99]);
    expect(checkLostUpdates(h.ops, S).summary).toMatch(/1 unexpected/);
  });

  it('is unknown without a successful read', () => {
    const h = new H().invoke(0, 'write', S, [1]).ok(0, 'write', S, [1]).invoke(4, 'read', S).info(4, 'read', S);
    expect(checkLostUpdates(h.ops, S).valid).toBe('unknown');
  });
});

/** The plain reading (as first written): each lost element looks through every write. Quadratic. */
function referenceOverwrites(history: readonly Op[]): Map<number, number | undefined> {
  const writes: { invoke: Op; completion: Op }[] = [];
  const open = new Map<unknown, Op>();
  for (const op of history) {
    if (op.f !== 'write') continue;
    if (op.type === 'invoke') open.set(op.process, op);
    else if (open.has(op.process)) {
      if (op.type === 'ok') writes.push({ invoke: open.get(op.process) as Op, completion: op });
      open.delete(op.process);
    }
  }
  const out = new Map<number, number | undefined>();
  for (const w of writes) {
    const element = decodeWrite(w.invoke.value).set.at(-1) as number;
    const o = writes.find(
      (x) => x.invoke.time > w.completion.time && !decodeWrite(x.invoke.value).set.includes(element),
    );
    out.set(element, o?.completion.index);
  }
  return out;
}

describe('lost updates, linear', () => {
  it('names the same overwriting write as the plain reading, on random histories', () => {
    let lost = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            drop: fc.nat(5),
            outcome: fc.nat(9),
            jitter: fc.integer({ min: -2, max: 2 }),
            fenced: fc.boolean(),
          }),
          { maxLength: 30 },
        ),
        fc.nat(9),
        (steps, keep) => {
          // Writes one after another, each adding a new element to what it read; some drop
          // elements (a stale read), some fail or end as info; times wobble a little.
          const history: Op[] = [];
          let set: number[] = [];
          let t = 0;
          const push = (op: Omit<Op, 'index'>) => history.push({ ...op, index: history.length } as Op);
          steps.forEach((s, i) => {
            const next = [...set.filter((e) => (e + s.drop) % 4 !== 0 || s.drop === 0), 100 + i];
            const value = s.fenced ? [next, i] : next;
            t += 10;
            push({ type: 'invoke', f: 'write', process: i, key: 'S', value, time: t + s.jitter * 7 });
            t += 10;
            const type = s.outcome < 7 ? 'ok' : s.outcome < 8 ? 'fail' : 'info';
            push({ type, f: 'write', process: i, key: 'S', value, time: t });
            if (type === 'ok') set = next;
          });
          push({ type: 'invoke', f: 'read', process: 999, key: 'S', time: t + 10 });
          push({
            type: 'ok',
            f: 'read',
            process: 999,
            key: 'S',
            value: set.filter((e) => e % 10 !== keep),
            time: t + 20,
          });
          const r = checkLostUpdates(history, 'S');
          const expected = referenceOverwrites(history);
          const got =
            (r.details as { lostElements?: { element: number; overwriteIndex?: number }[] }).lostElements ?? [];
          lost += got.length;
          for (const l of got) expect(l.overwriteIndex).toBe(expected.get(l.element));
        },
      ),
      { numRuns: 3000, seed: 20261130 },
    );
    expect(lost).toBeGreaterThan(1000);
  });

  it('20,000 lost elements, each kept by 200 writes before one drops it', () => {
    // Every write keeps the last 200 elements, so each lost element is looked for in 200
    // writes; the plain reading looks through all the writes before them too.
    const history: Op[] = [];
    for (let i = 0; i < 20_000; i++) {
      const value = Array.from({ length: Math.min(i, 200) }, (_, k) => i - Math.min(i, 200) + k).concat(i);
      history.push({ index: history.length, type: 'invoke', f: 'write', process: 0, key: 'S', value, time: 2 * i });
      history.push({ index: history.length, type: 'ok', f: 'write', process: 0, key: 'S', value, time: 2 * i + 1 });
    }
    history.push({ index: history.length, type: 'invoke', f: 'read', process: 1, key: 'S', time: 1e9 });
    history.push({ index: history.length, type: 'ok', f: 'read', process: 1, key: 'S', value: [], time: 1e9 + 1 });
    const r = checkLostUpdates(history, 'S');
    expect(r.details).toMatchObject({ lost: 20_000 });
    expect(r.summary).toContain('element 0, acknowledged to process 0');
    expect(r.summary).toContain("overwritten by process 0's write");
  });
});
