import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Op, OpType, Process } from '../src/history/op.js';
import { checkPerf } from './perf.js';

const MS = 1_000_000;

/** A history from events at explicit times (ms), in time order, indexed. */
function history(events: [number, OpType, Process, string, unknown?][]): Op[] {
  return events
    .map(([ms, type, process, f, value]) => ({ type, process, f, time: ms * MS, ...(value ? { value } : {}) }))
    .sort((a, b) => a.time - b.time)
    .map((op, index) => ({ index, ...op }));
}

describe('perf', () => {
  it('splits outcomes, latencies and throughput by whether a fault was in effect', () => {
    const h = history([
      // outside faults: two quick grants
      [0, 'invoke', 0, 'acquire'],
      [2, 'ok', 0, 'acquire'],
      [10, 'invoke', 1, 'acquire'],
      [14, 'ok', 1, 'acquire'],
      // a fault from 100 to 300 ms
      [100, 'invoke', 'nemesis', 'start-pause-node'],
      [100, 'ok', 'nemesis', 'start-pause-node'],
      [300, 'invoke', 'nemesis', 'stop-pause-node'],
      [300, 'ok', 'nemesis', 'stop-pause-node'],
      // during it: one slow grant, one fail, one timeout
      [110, 'invoke', 0, 'acquire'],
      [290, 'ok', 0, 'acquire'],
      [120, 'invoke', 1, 'acquire'],
      [130, 'fail', 1, 'acquire'],
      [140, 'invoke', 2, 'acquire'],
      [240, 'info', 2, 'acquire'],
      // and after it a release, outside again
      [400, 'invoke', 0, 'release'],
      [401, 'ok', 0, 'release'],
    ]);
    const r = checkPerf(h);
    expect(r.valid).toBe(true);
    expect(r.details.spanS).toBe(0.401);
    expect(r.details.faultS).toBe(0.2);
    const acquire = r.details.kinds.acquire;
    expect(acquire?.outside).toMatchObject({ attempts: 2, ok: 2, fail: 0, info: 0, availability: 1 });
    expect(acquire?.outside.latencyMs).toEqual({ p50: 2, p95: 4, p99: 4, max: 4 });
    expect(acquire?.during).toMatchObject({ attempts: 3, ok: 1, fail: 1, info: 1, availability: 0.3333 });
    expect(acquire?.during.latencyMs?.max).toBe(180);
    expect(acquire?.during.perSecond).toBe(5); // 1 grant in 0.2 s
    expect(acquire?.all).toMatchObject({ attempts: 5, ok: 3, availability: 0.6 });
    expect(r.details.kinds.release?.outside.ok).toBe(1);
    expect(r.summary).toBe(
      'acquire: 5 attempts, 60% ok, 7.48/s, ok latency p50 4 ms, p99 180 ms; outside faults 100% ok, p99 4 ms; during faults (0.2 of 0.401 s) 33.3% ok, p99 180 ms',
    );
  });

  it('counts an invocation that never completed as info, and a fault never healed until the end', () => {
    const h = history([
      [0, 'invoke', 'nemesis', 'start-partition'],
      [0, 'ok', 'nemesis', 'start-partition'],
      [10, 'invoke', 0, 'write', [1]],
      [20, 'ok', 0, 'write', [1]],
      [30, 'invoke', 1, 'write', [2]],
    ]);
    const r = checkPerf(h);
    expect(r.details.faultS).toBe(r.details.spanS);
    expect(r.details.kinds.write?.during).toMatchObject({ attempts: 2, ok: 1, info: 1 });
    expect(r.details.kinds.write?.outside).toMatchObject({ attempts: 0, availability: null, latencyMs: null });
    expect(r.summary).toMatch(/^write: 2 attempts, 50% ok/);
  });

  it('says when no fault was in effect, and answers unknown with nothing to measure', () => {
    const quiet = checkPerf(
      history([
        [0, 'invoke', 0, 'acquire'],
        [1, 'ok', 0, 'acquire'],
      ]),
    );
    expect(quiet.summary).toMatch(/; no fault in effect$/);
    expect(checkPerf([]).valid).toBe('unknown');
  });

  it('adds up: phases partition the attempts and the span; percentiles are ordered', () => {
    const opArb = fc.record({
      f: fc.constantFrom('acquire', 'release', 'read', 'write'),
      end: fc.constantFrom<OpType | 'none'>('ok', 'fail', 'info', 'none'),
      gap: fc.integer({ min: 0, max: 50 }),
      took: fc.integer({ min: 0, max: 100 }),
    });
    const arb = fc.record({
      processes: fc.array(fc.array(opArb, { maxLength: 15 }), { minLength: 1, maxLength: 5 }),
      faults: fc.array(fc.record({ at: fc.integer({ min: 0, max: 1500 }), lasts: fc.integer({ min: 0, max: 400 }) }), {
        maxLength: 4,
      }),
    });
    fc.assert(
      fc.property(arb, ({ processes, faults }) => {
        const events: [number, OpType, Process, string][] = [];
        processes.forEach((ops, p) => {
          let t = 0;
          for (const op of ops) {
            t += op.gap;
            events.push([t, 'invoke', p, op.f]);
            if (op.end === 'none') return; // a process never issues after an unanswered op
            t += op.took;
            events.push([t, op.end, p, op.f]);
            if (op.end === 'info') return;
          }
        });
        faults.forEach(({ at, lasts }, i) => {
          events.push([at, 'invoke', 'nemesis', `start-f${i}`], [at, 'ok', 'nemesis', `start-f${i}`]);
          events.push([at + lasts, 'invoke', 'nemesis', `stop-f${i}`], [at + lasts, 'ok', 'nemesis', `stop-f${i}`]);
        });
        const h = history(events);
        const r = checkPerf(h);
        const clientInvokes = h.filter((op) => op.process !== 'nemesis' && op.type === 'invoke').length;
        if (clientInvokes === 0) {
          expect(r.valid).toBe('unknown');
          return;
        }
        expect(r.details.faultS).toBeLessThanOrEqual(r.details.spanS);
        let attempts = 0;
        for (const k of Object.values(r.details.kinds)) {
          expect(k.all.attempts).toBe(k.outside.attempts + k.during.attempts);
          for (const s of [k.all, k.outside, k.during]) {
            expect(s.ok + s.fail + s.info).toBe(s.attempts);
            if (s.latencyMs) {
              const { p50, p95, p99, max } = s.latencyMs;
              expect(p50 <= p95 && p95 <= p99 && p99 <= max).toBe(true);
            }
            if (s.availability !== null) expect(s.availability).toBeGreaterThanOrEqual(0);
            if (s.availability !== null) expect(s.availability).toBeLessThanOrEqual(1);
          }
          attempts += k.all.attempts;
        }
        expect(attempts).toBe(clientInvokes);
      }),
      { numRuns: 500 },
    );
  });
});
