/**
 * The first counted violation while a run goes (--stop-on-violation) against the checkers
 * that judge the final history: what it names, they count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Op } from '../src/history/op.js';
import { H } from '../test/unit/history-builder.js';
import { checkFencing } from './fencing.js';
import { LiveViolations } from './live-violations.js';
import { checkLostUpdates } from './lost-updates.js';
import { checkMutualExclusion } from './mutual-exclusion.js';

const S = 'S';

/** Feeds the ops in order; the first violation named, if any. */
function firstOf(ops: readonly Op[], fenced: boolean, storeKey: string | undefined = S): string | undefined {
  const seen: Op[] = [];
  const live = new LiveViolations({ fencing: fenced, storeKey, historySoFar: () => seen, checkEveryNs: 0 });
  for (const op of ops) {
    seen.push(op);
    live.onOp(op);
  }
  return live.first;
}

describe('live violations', () => {
  it('names overlapping holds unfenced, once both ends are known', () => {
    const h = new H().acquire(0).acquire(1);
    expect(firstOf(h.ops, false)).toBeUndefined();
    h.release(0);
    expect(firstOf(h.ops, false)).toMatch(/overlapping holds/);
    expect(checkMutualExclusion(h.ops, { counts: true }).valid).toBe(false);
  });

  it('does not stop a fenced run on overlapping holds: with fencing they are expected', () => {
    const h = new H().acquire(0, 1).acquire(1, 2).release(0).release(1);
    expect(firstOf(h.ops, true)).toBeUndefined();
  });

  it('names a stale token the store accepted, in times not op numbers', () => {
    const h = new H()
      .acquire(0, 1)
      .acquire(1, 2)
      .invoke(1, 'write', S, [[2], 2])
      .ok(1, 'write', S, [[2], 2])
      .invoke(0, 'write', S, [[1], 1])
      .ok(0, 'write', S, [[1], 1]);
    const first = firstOf(h.ops, true);
    expect(first).toMatch(
      /^fencing: the store accepted token 1 from process 0 at 0\.008 s after it had accepted token 2 at 0\.006 s$/,
    );
    expect(first).not.toMatch(/#\d/);
  });

  it('names a token granted twice (a forked token source)', () => {
    const h = new H().acquire(0, 7).release(0).acquire(1, 7);
    expect(firstOf(h.ops, true)).toMatch(/token 7 was granted twice: to process 0 at 0\.002 s and to process 1/);
  });

  it('names an acknowledged add missing from a later read', () => {
    const h = new H()
      .invoke(0, 'read', S)
      .invoke(1, 'read', S)
      .ok(0, 'read', S, [])
      .ok(1, 'read', S, [])
      .invoke(0, 'write', S, [1])
      .ok(0, 'write', S, [1])
      .invoke(1, 'write', S, [2])
      .ok(1, 'write', S, [2])
      .invoke(2, 'read', S);
    expect(firstOf(h.ops, false, S)).toBeUndefined();
    h.ok(2, 'read', S, [2]);
    expect(firstOf(h.ops, false, S)).toMatch(
      /element 1, acknowledged to process 0 at 0\.006 s, not in process 2's read/,
    );
    // The final read (the last) agrees: element 1 is lost.
    expect(checkLostUpdates(h.ops, S).valid).toBe(false);
  });

  it('takes no read invoked before the add was acknowledged as a loss', () => {
    const h = new H().invoke(2, 'read', S).invoke(0, 'write', S, [1]).ok(0, 'write', S, [1]).ok(2, 'read', S, []);
    expect(firstOf(h.ops, false, S)).toBeUndefined();
  });

  it('what it names fenced, the fencing checker counts in the whole history', () => {
    // Grants with random tokens and random overlaps; writes with the holder's token. Any
    // violation named on a prefix is one the checker finds in the history that follows.
    const step = fc.record({
      process: fc.integer({ min: 0, max: 3 }),
      token: fc.integer({ min: 1, max: 6 }),
      write: fc.boolean(),
      release: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 12 }), (steps, cut) => {
        const h = new H();
        for (const s of steps) {
          h.acquire(s.process, s.token);
          if (s.write)
            h.invoke(s.process, 'write', S, [[s.token], s.token]).ok(s.process, 'write', S, [[s.token], s.token]);
          if (s.release) h.release(s.process);
        }
        const prefix = h.ops.slice(0, Math.max(1, Math.round((h.ops.length * cut) / 12)));
        if (firstOf(prefix, true) !== undefined) {
          expect(checkFencing(h.ops, { storeKey: S, fencing: true }).valid).toBe(false);
        }
      }),
    );
  });

  it('what it names fenced, the checker counts in the whole history, whatever order the ops arrive in', () => {
    // Each process takes the lock (a grant with a token and a 1 s lease), maybe writes, and
    // releases; holds overlap at random. The ops arrive interleaved at random across
    // processes (each process's own in order, as a worker sends them): a release may arrive
    // after another process's later grant.
    const hold = fc.record({
      start: fc.integer({ min: 0, max: 3000 }),
      ms: fc.integer({ min: 1, max: 1500 }),
      token: fc.integer({ min: 1, max: 8 }),
      write: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(fc.array(hold, { minLength: 1, maxLength: 3 }), { minLength: 2, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        (processes, picks) => {
          const ms = 1_000_000;
          const perProcess = processes.map((holds, process) => {
            const ops: Op[] = [];
            let t = 0;
            const add = (type: Op['type'], f: string, time: number, key: string, value?: unknown) => {
              t = Math.max(t + 1, time);
              ops.push({ index: 0, type, f, process, time: t, key, ...(value === undefined ? {} : { value }) });
            };
            for (const h of [...holds].sort((a, b) => a.start - b.start)) {
              add('invoke', 'acquire', h.start * ms, 'L');
              add('ok', 'acquire', h.start * ms + 1, 'L', { token: h.token, validityMs: 1000 });
              if (h.write) {
                add('invoke', 'write', t + 1, S, [[h.token], h.token]);
                add('ok', 'write', t + 1, S, [[h.token], h.token]);
              }
              add('invoke', 'release', (h.start + h.ms) * ms, 'L');
              add('ok', 'release', t + 1, 'L');
            }
            return ops;
          });
          const arrival: Op[] = [];
          const next = perProcess.map(() => 0);
          for (let k = 0; arrival.length < perProcess.flat().length; k++) {
            const open = perProcess.flatMap((ops, p) => ((next[p] as number) < ops.length ? [p] : []));
            const p = open[(picks[k % picks.length] as number) % open.length] as number;
            const op = perProcess[p]?.[next[p] as number] as Op;
            next[p] = (next[p] as number) + 1;
            arrival.push({ ...op, index: arrival.length });
          }
          const whole = [...arrival].sort((a, b) => a.time - b.time).map((op, index) => ({ ...op, index }));
          if (firstOf(arrival, true) !== undefined) {
            expect(checkFencing(whole, { storeKey: S, fencing: true }).valid).toBe(false);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
