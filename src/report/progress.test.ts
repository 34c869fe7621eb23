import { describe, expect, it } from 'vitest';
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
  it('counts operations, active faults and overlapping holds from the op stream', () => {
    const { stream, out } = sink();
    const c = clock();
    const p = new RunProgress({ timeLimitS: 15, stream, now: c.now, manual: true });
    let time = 0;
    const op = (type: string, f: string, process: number | 'nemesis', value?: unknown) =>
      p.onOp({ type, f, process, time: ++time, key: f === 'acquire' || f === 'release' ? 'L' : undefined, value });
    op('invoke', 'acquire', 0);
    op('ok', 'acquire', 0);
    op('invoke', 'start-pause-client', 'nemesis');
    op('ok', 'start-pause-client', 'nemesis', { client: 0, process: 0 });
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
      'progress: 5.0 s of 15 s, 10.0 s left · 1 ops/s (6 ops) · overlapping holds: 2 · faults: pause-client p0\n',
    ]);
    op('invoke', 'stop-pause-client', 'nemesis');
    op('ok', 'stop-pause-client', 'nemesis', { client: 0 });
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

  it('ends with one closing line at the time limit, and says overlap is expected with fencing', () => {
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
    p.stop();
    expect(out).toEqual(['workload done: 10.0 s, 0 ops (0 ops/s), 0 overlapping holds (not counted with fencing)\n']);
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
