import { describe, expect, it } from 'vitest';
import { H } from '../test/unit/history-builder.js';
import { checkMutualExclusion, holds, mutualExclusionViolations } from './mutual-exclusion.js';

/** A result as results.json stores it, as the report reads it back (Infinity becomes null). */
const stored = <T>(r: T): T => JSON.parse(JSON.stringify(r));

describe('mutual exclusion', () => {
  it('accepts holds one after another', () => {
    const h = new H().acquire(0).release(0).acquire(1).release(1);
    const r = checkMutualExclusion(h.ops, { counts: true });
    expect(r.valid).toBe(true);
    expect(r.details?.holds).toBe(2);
  });

  it('names both holders of an overlap', () => {
    const h = new H().acquire(0).acquire(1).release(0).release(1);
    const r = checkMutualExclusion(h.ops, { counts: true });
    expect(r.valid).toBe(false);
    expect(r.summary).toMatch(/process 0 held 'L'.*while process 1 acquired it/);
    const [v, ...more] = mutualExclusionViolations(stored(r));
    expect(more).toEqual([]);
    expect(v?.kind).toBe('overlap');
    expect(v?.words).toMatch(
      /^process 0 held 'L' from .* \(op #1\) to .* \(release #4\), while process 1 also held 'L' from .* \(op #3\) to .* \(release #6\)$/,
    );
    expect(v?.marks).toEqual([
      { index: 1, label: 'p0 acquires' },
      { index: 3, label: 'p1 acquires while p0 holds' },
      { index: 4, label: 'p0 releases' },
      { index: 6, label: 'p1 releases' },
    ]);
  });

  it('names holds never released as lasting to the end, from the stored result too', () => {
    const r = stored(checkMutualExclusion(new H().acquire(0).acquire(1).ops, { counts: false }));
    const [v] = mutualExclusionViolations(r);
    expect(v?.holds?.map((h) => h.end)).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
    expect(v?.words).toMatch(/to the end of the test, while process 1 also held 'L' .* to the end of the test$/);
    expect(mutualExclusionViolations(stored(checkMutualExclusion(new H().acquire(0).ops, { counts: true })))).toEqual(
      [],
    );
  });

  it('ends a belief at the release invocation, not its completion', () => {
    // 0 invokes release, 1 acquires before 0's release completes: no overlap of beliefs.
    const h = new H().acquire(0).invoke(0, 'release', 'L').acquire(1).ok(0, 'release', 'L').release(1);
    expect(checkMutualExclusion(h.ops, { counts: true }).valid).toBe(true);
  });

  it('ends a belief at a release in a history without keys (one lock)', () => {
    const ops = new H()
      .acquire(0)
      .release(0)
      .acquire(1)
      .release(1)
      .ops.map(({ key: _, ...op }) => op);
    const r = checkMutualExclusion(ops, { counts: true });
    expect(r.valid).toBe(true);
    expect(holds(ops).map((h) => h.end)).not.toContain(Number.POSITIVE_INFINITY);
  });

  it('ends a belief when the holder gives up after an info', () => {
    const h = new H().acquire(0).invoke(0, 'read', 'S').info(0, 'read', 'S').acquire(1).release(1);
    expect(checkMutualExclusion(h.ops, { counts: true }).valid).toBe(true);
  });

  it('keeps a belief open while the holder has an operation pending at the end', () => {
    const h = new H().acquire(0).invoke(0, 'write', 'S', [1]).acquire(1).release(1);
    const [first] = holds(h.ops);
    expect(first?.end).toBe(Number.POSITIVE_INFINITY);
    expect(checkMutualExclusion(h.ops, { counts: true }).valid).toBe(false);
  });

  it('ignores failed acquires and other locks', () => {
    const h = new H()
      .acquire(0, undefined, 'A')
      .invoke(1, 'acquire', 'A')
      .fail(1, 'acquire', 'A')
      .acquire(2, undefined, 'B')
      .release(0, 'A')
      .release(2, 'B');
    expect(checkMutualExclusion(h.ops, { counts: true }).valid).toBe(true);
  });

  it('marks its result as not counted when asked (fenced runs)', () => {
    const h = new H().acquire(0).acquire(1);
    const r = checkMutualExclusion(h.ops, { counts: false });
    expect(r.valid).toBe(false);
    expect(r.counts).toBe(false);
  });

  it('relates an overlap to the faults active at the time', () => {
    const h = new H()
      .acquire(0)
      .invoke('nemesis', 'start-client-pause')
      .ok('nemesis', 'start-client-pause', undefined, { client: 0 })
      .acquire(1)
      .invoke('nemesis', 'stop-client-pause')
      .ok('nemesis', 'stop-client-pause')
      .release(0);
    expect(checkMutualExclusion(h.ops, { counts: true }).summary).toMatch(/faults active: client-pause/);
  });
  it('names a fault that stopped a client inside its acquire and ended just before its grant', () => {
    const h = new H()
      .invoke(1, 'acquire', 'L')
      .invoke('nemesis', 'start-client-clock')
      .ok('nemesis', 'start-client-clock', undefined, { client: 1 })
      .invoke('nemesis', 'stop-client-clock')
      .ok('nemesis', 'stop-client-clock')
      .acquire(0)
      .ok(1, 'acquire', 'L')
      .release(0)
      .release(1);
    expect(checkMutualExclusion(h.ops, { counts: true }).summary).toMatch(/faults active: client-clock/);
  });
});

describe('mutual exclusion: how the lock came free under its holder', () => {
  it("names a release sent before the holder's grant that landed while it held: another holder's lock released", () => {
    const h = new H()
      .acquire(0)
      .invoke(0, 'release', 'L')
      .acquire(1)
      .ok(0, 'release', 'L')
      .acquire(2)
      .release(1)
      .release(2);
    const r = checkMutualExclusion(h.ops, { counts: true });
    expect(r.valid).toBe(false);
    expect(r.details.first).toMatch(
      /process 1 held .* while process 2 acquired it .*; another holder's lock released: process 0's release \(op #5\), sent at .* before process 1's grant, completed at .* while process 1 held the lock/,
    );
  });

  it("names a release answered after the holder began releasing, when the holder's release found the lock gone", () => {
    // retrylock: process 0's retried DEL landed while process 1 held (process 2 was then
    // granted), and was answered a moment after process 1 sent its own release, which
    // answered "no longer ours". Had it answered ok, the lock was still its own then.
    const ops = (own: 'ok' | 'fail') => {
      const h = new H().acquire(0).invoke(0, 'release', 'L').acquire(1).acquire(2).invoke(1, 'release', 'L');
      const answered = h.ok(0, 'release', 'L');
      return (
        own === 'ok'
          ? answered.ok(1, 'release', 'L')
          : answered.fail(1, 'release', 'L', undefined, 'the lock was no longer ours')
      ).release(2).ops;
    };
    expect(checkMutualExclusion(ops('fail'), { counts: true }).details.first).toMatch(
      /another holder's lock released: process 0's release/,
    );
    expect(checkMutualExclusion(ops('ok'), { counts: true }).details.first).not.toMatch(
      /another holder's lock released/,
    );
  });

  it("does not take a release answered before the holder's grant, however long its acquire retried", () => {
    // Redlock: process 1's acquire retried from before process 0's release; that release
    // was answered before process 1 was granted, and names nothing of process 1's lock.
    const h = new H().acquire(0).invoke(0, 'release', 'L').invoke(1, 'acquire', 'L').ok(0, 'release', 'L');
    const ops = h
      .ok(1, 'acquire', 'L', {})
      .acquire(2)
      .invoke(1, 'release', 'L')
      .fail(1, 'release', 'L', undefined, 'no longer ours')
      .release(2).ops;
    expect(checkMutualExclusion(ops, { counts: true }).details.first).not.toMatch(/another holder's lock released/);
  });

  it('names the holder’s lease run out by the next grant before any release in flight', () => {
    // As the release test above, but process 1 was granted with 1 ms of validity: its lease
    // ran out before process 2's grant, whatever process 0's release did.
    const h = new H()
      .acquire(0)
      .invoke(0, 'release', 'L')
      .invoke(1, 'acquire', 'L')
      .ok(1, 'acquire', 'L', { validityMs: 1 })
      .ok(0, 'release', 'L')
      .acquire(2)
      .release(1)
      .release(2);
    const r = checkMutualExclusion(h.ops, { counts: true });
    expect(r.details.first).toMatch(
      /process 1 held .* while process 2 acquired it .*; process 1's lease had run out: granted with 1 ms of validity at 0\.005 s, to 0\.006 s, before process 2's grant/,
    );
    expect(r.details.first).not.toMatch(/another holder's lock released/);
    // A lease that still stood at the next grant: the release is named, as before.
    const standing = h.ops.map((op) =>
      op.value && (op.value as { validityMs?: number }).validityMs === 1 ? { ...op, value: { validityMs: 1000 } } : op,
    );
    expect(checkMutualExclusion(standing, { counts: true }).details.first).toMatch(/another holder's lock released/);
  });

  it('says nothing of a release when none landed under the holder', () => {
    const h = new H().acquire(0).acquire(1).release(0).release(1);
    expect(checkMutualExclusion(h.ops, { counts: true }).details.first).not.toMatch(/released/);
  });
});
