import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LiveOverlaps } from '../../checkers/live-overlaps.js';
import { checkMutualExclusion } from '../../checkers/mutual-exclusion.js';
import { H } from '../../test/unit/history-builder.js';
import { RunProgress } from './progress.js';

function sink(isTTY = false) {
  const out: string[] = [];
  return { out, stream: { isTTY, columns: 200, write: (s: string) => out.push(s) } };
}

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('run progress', () => {
  it("shows a count the caller feeds, and does not feed it again (the runner's, shared with --stop-on-violation)", () => {
    const live = new LiveOverlaps();
    const p = new RunProgress({ timeLimitS: 15, stream: sink().stream, manual: true, overlaps: live });
    const ops = new H().acquire(0).acquire(1).release(0).release(1).ops;
    for (const op of ops) p.onOp(op);
    expect(p.overlaps).toBe(0); // progress did not feed the caller's count
    for (const op of ops) live.onOp(op);
    expect(p.overlaps).toBe(1);
    expect(p.operations).toBe(4);
  });

  it('counts operations, active faults and overlapping holds from the op stream', () => {
    const { stream, out } = sink();
    const c = clock();
    const p = new RunProgress({ timeLimitS: 15, stream, now: c.now, manual: true });
    let time = 0;
    const op = (type: string, f: string, process: number | 'nemesis', value?: unknown) =>
      p.onOp({ type, f, process, time: ++time, key: f === 'acquire' || f === 'release' ? 'L' : undefined, value });
    op('invoke', 'acquire', 0);
    op('ok', 'acquire', 0);
    op('invoke', 'start-client-pause', 'nemesis');
    op('ok', 'start-client-pause', 'nemesis', { client: 0, process: 0 });
    op('invoke', 'acquire', 1);
    op('ok', 'acquire', 1); // p0 has not released: one overlap
    op('invoke', 'release', 1);
    op('ok', 'release', 1);
    op('invoke', 'acquire', 2);
    op('ok', 'acquire', 2); // p0 still holds: two
    op('invoke', 'write', 0);
    op('info', 'write', 0); // p0 gives up (info): its belief ends
    op('invoke', 'release', 2);
    op('invoke', 'acquire', 3);
    op('ok', 'acquire', 3); // nobody holds: still two
    expect(p.overlaps).toBe(2);
    expect(p.operations).toBe(6);
    c.advance(5000);
    p.tick();
    expect(out).toEqual([
      'progress: 5.0 s of 15 s, 10.0 s left · 1 ops/s (6 ops) · overlapping holds: 2 · faults: client-pause process 0\n',
    ]);
    op('invoke', 'stop-client-pause', 'nemesis');
    op('ok', 'stop-client-pause', 'nemesis', { client: 0 });
    expect(p.line()).toContain('faults: none');
  });

  it("judges overlaps on the ops' times, not on the order they arrive in", () => {
    const { stream } = sink();
    const p = new RunProgress({ timeLimitS: 15, stream, manual: true });
    const op = (type: string, f: string, process: number, time: number) => p.onOp({ type, f, process, time, key: 'L' });
    op('ok', 'acquire', 0, 10);
    op('ok', 'acquire', 1, 30); // arrives before p0's release, which happened earlier
    op('invoke', 'release', 0, 20);
    expect(p.overlaps).toBe(0);
    op('ok', 'acquire', 2, 35); // p1 still holds: an overlap, once p1's end is known
    op('invoke', 'release', 1, 40);
    expect(p.overlaps).toBe(1);
  });

  it('stops updating at the time limit and closes when the runner says the clients stopped, with fencing noted', () => {
    const { stream, out } = sink();
    const c = clock();
    const p = new RunProgress({ timeLimitS: 10, fencing: true, stream, now: c.now, manual: true });
    c.advance(3000);
    p.tick(); // not started: the clients have not been let go
    expect(out).toEqual([]);
    p.start();
    c.advance(10_000);
    p.tick();
    p.tick();
    // On c7f3e6e the closing line came here, before the runner's "time is up: faults healed".
    expect(out).toEqual([]);
    c.advance(1500);
    p.finish();
    p.stop();
    expect(out).toEqual(['workload done: 11.5 s, 0 ops (0 ops/s), 0 overlapping holds (not counted with fencing)\n']);
  });

  it('agrees with the checker: a paused holder overlapped by 70 later holds is 70, not 1', () => {
    const p = new RunProgress({ timeLimitS: 15, stream: sink().stream, manual: true });
    const history = new H().acquire(0); // p0 holds, paused
    for (let i = 0; i < 70; i++) history.acquire(1 + (i % 3)).release(1 + (i % 3));
    history.release(0);
    for (const op of history.ops) p.onOp(op);
    const checker = checkMutualExclusion(history.ops, { counts: true });
    expect(checker.details?.overlaps).toBe(70);
    expect(p.overlaps).toBe(70);
  });

  it('agrees with the checker: a hold never released counts (0 live, then INVALID, on c7f3e6e)', () => {
    const p = new RunProgress({ timeLimitS: 15, stream: sink().stream, manual: true });
    const history = new H().acquire(0).acquire(1).release(1).acquire(2);
    for (const op of history.ops) p.onOp(op);
    expect(checkMutualExclusion(history.ops, { counts: true }).details?.overlaps).toBe(2);
    expect(p.overlaps).toBe(2);
  });

  it("property: at the end, the live count is the mutual-exclusion checker's", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 9 })), { maxLength: 120 }),
        (steps) => {
          const h = new H();
          const holding = new Set<number>();
          const proc = [0, 1, 2, 3, 4];
          for (const [client, roll] of steps) {
            const p = proc[client] as number;
            if (!holding.has(p)) {
              h.invoke(p, 'acquire', 'L');
              if (roll < 7) {
                h.ok(p, 'acquire', 'L', {});
                holding.add(p);
              } else if (roll < 9) h.fail(p, 'acquire', 'L');
              else {
                h.info(p, 'acquire', 'L');
                proc[client] = p + 5; // a fresh process after info
              }
            } else if (roll < 8) {
              h.invoke(p, 'release', 'L').ok(p, 'release', 'L');
              holding.delete(p);
            } else if (roll < 9) {
              h.invoke(p, 'write', 'S').info(p, 'write', 'S'); // gives up: the belief ends
              holding.delete(p);
              proc[client] = p + 5;
            }
          }
          const live = new RunProgress({ timeLimitS: 15, stream: sink().stream, manual: true });
          for (const op of h.ops) live.onOp(op);
          expect(live.overlaps).toBe(checkMutualExclusion(h.ops, { counts: true }).details?.overlaps);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('redraws one live line on a TTY and clears it when stopped', () => {
    const { stream, out } = sink(true);
    const c = clock();
    const p = new RunProgress({ timeLimitS: 10, stream, now: c.now, manual: true, live: true });
    p.start();
    c.advance(500);
    p.tick(); // the first second is left to the runner's own log lines
    expect(out).toEqual([]);
    c.advance(1000);
    p.tick();
    c.advance(1000);
    p.tick();
    expect(out).toHaveLength(2);
    expect(out[1]?.startsWith('\r\x1b[2K2.5 s of 10 s, 7.5 s left · ')).toBe(true);
    expect(out.every((s) => !s.includes('\n'))).toBe(true);
    p.stop();
    expect(out.at(-1)).toBe('\r\x1b[2K');
  });

  it('writes plain lines when CI is set, even on a TTY', () => {
    const saved = process.env.CI;
    process.env.CI = 'true';
    try {
      const { stream, out } = sink(true);
      const c = clock();
      const p = new RunProgress({ timeLimitS: 30, stream, now: c.now, manual: true });
      p.start();
      c.advance(5000);
      p.tick();
      expect(out[0]).toMatch(/^progress: 5\.0 s of 30 s/);
      expect(out[0]?.endsWith('\n')).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.CI;
      else process.env.CI = saved;
    }
  });
});
