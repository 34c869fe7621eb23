import { describe, expect, it } from 'vitest';
import { type LiveOp, LiveOverlaps } from '../../checkers/live-overlaps.js';
import { H } from '../../test/unit/history-builder.js';
import { type ProgressOptions, RunProgress } from './progress.js';

function sink(isTTY = false) {
  const out: string[] = [];
  return { out, stream: { isTTY, columns: 200, write: (s: string) => out.push(s) } };
}

/** A progress line and the overlap count it shows, fed as the runner feeds both. */
function progress(options: Omit<ProgressOptions, 'overlaps'>) {
  const overlaps = new LiveOverlaps();
  const p = new RunProgress({ ...options, overlaps });
  const feed = <T extends LiveOp & { value?: unknown }>(op: T) => {
    overlaps.onOp(op);
    return p.onOp(op);
  };
  return { p, feed };
}

function clock() {
  let t = 0;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('run progress', () => {
  it("shows the count the caller feeds, and does not feed it again (the runner's, shared with --stop-on-violation)", () => {
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
    const { p, feed } = progress({ timeLimitS: 15, stream, now: c.now, manual: true });
    let time = 0;
    const op = (type: string, f: string, process: number | 'nemesis', value?: unknown) =>
      feed({ type, f, process, time: ++time, key: f === 'acquire' || f === 'release' ? 'L' : undefined, value });
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

  it('stops updating at the time limit and closes when the runner says the clients stopped, with fencing noted', () => {
    const { stream, out } = sink();
    const c = clock();
    const { p } = progress({ timeLimitS: 10, fencing: true, stream, now: c.now, manual: true });
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

  it('redraws one live line on a TTY and clears it when stopped', () => {
    const { stream, out } = sink(true);
    const c = clock();
    const { p } = progress({ timeLimitS: 10, stream, now: c.now, manual: true, live: true });
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

  it('keeps the overlap and fault counts on an 80-column terminal, cutting only the faults names', () => {
    const out: string[] = [];
    const stream = { isTTY: true, columns: 80, write: (x: string) => out.push(x) };
    const c = clock();
    const { p, feed } = progress({ timeLimitS: 300, fencing: true, stream, now: c.now, manual: true, live: true });
    let time = 0;
    for (const [kind, value] of [
      ['client-pause', { client: 3, process: 3 }],
      ['partition', { target: 'majorities-ring' }],
      ['pause-node', { node: 'n2' }],
    ] as const) {
      feed({ type: 'invoke', f: `start-${kind}`, process: 'nemesis', time: ++time });
      feed({ type: 'ok', f: `start-${kind}`, process: 'nemesis', time: ++time, value });
    }
    for (let i = 0; i < 2000; i++) feed({ type: 'ok', f: 'read', process: 1, time: ++time });
    c.advance(12_345);
    p.tick();
    const drawn = (out.at(-1) ?? '').replace('\r\x1b[2K', '');
    expect(p.line().length).toBeGreaterThan(80); // the full line would not fit
    expect(drawn.length).toBeLessThanOrEqual(79);
    expect(drawn).toMatch(/^12\.3\/300 s · \d+ ops\/s · overlaps: 0 \(fenced\) · faults 3: client-pause/);
    expect(drawn.endsWith('…')).toBe(true);
    expect(p.fit(200)).toBe(p.line()); // a wide terminal: all of it
  });

  it('writes plain lines when CI is set, even on a TTY', () => {
    const saved = process.env.CI;
    process.env.CI = 'true';
    try {
      const { stream, out } = sink(true);
      const c = clock();
      const { p } = progress({ timeLimitS: 30, stream, now: c.now, manual: true });
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
