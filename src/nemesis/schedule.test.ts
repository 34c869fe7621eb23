import { describe, expect, it } from 'vitest';
import { faultWindows } from '../../checkers/fault-windows.js';
import type { UnindexedOp } from '../history/recorder.js';
import { monotonicNow, NS_PER_MS } from '../util/monotonic-clock.js';
import { Rng } from '../util/rng.js';
import { type FaultPlan, type FaultStart, faultDurationMs, type Nemesis, planned } from './nemesis.js';
import { runSchedule, type ScheduledFault } from './schedule.js';

/** A nemesis that draws a node and a duration as the real ones do, and does nothing. */
class FakeNemesis implements Nemesis {
  readonly kind = 'pause-node';
  starts = 0;
  stops = 0;
  constructor(private readonly skipEvery = 0) {}
  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const durationMs = planned(plan, faultDurationMs(0.02, rng));
    const node = rng.pick(['n1', 'n2', 'n3', 'n4', 'n5']);
    this.starts++;
    if (this.skipEvery > 0 && this.starts % this.skipEvery === 0) return null;
    return { value: { node, ms: durationMs }, durationMs };
  }
  async stop() {
    this.stops++;
    return null;
  }
  async healAll() {}
}

async function schedule(nemesis: Nemesis, opts: { seed?: number; forMs?: number; given?: ScheduledFault[] }) {
  const ops: UnindexedOp[] = [];
  const faults: ScheduledFault[] = [];
  const stop = new AbortController();
  const origin = monotonicNow();
  const done = runSchedule({
    nemesis,
    rng: new Rng(opts.seed ?? 1),
    intervalS: 0.02,
    origin,
    record: (op) => ops.push(op),
    signal: stop.signal,
    given: opts.given,
    applied: (f) => faults.push(f),
  });
  setTimeout(() => stop.abort(), opts.forMs ?? 400);
  await done;
  return { ops, faults, started: ops.filter((o) => o.f === 'start-pause-node' && o.type === 'ok') };
}

describe('runSchedule', () => {
  it('records each fault it drew, and a given schedule applies the same faults at their times', async () => {
    const drawn = await schedule(new FakeNemesis(), { seed: 7 });
    expect(drawn.faults.length).toBeGreaterThan(3);
    expect(drawn.faults.map((f) => f.did)).toEqual(drawn.started.map((o) => o.value));

    const replayed = await schedule(new FakeNemesis(), { seed: 99, forMs: 2000, given: drawn.faults });
    expect(replayed.started.map((o) => o.value)).toEqual(drawn.started.map((o) => o.value));
    expect(replayed.faults.map(({ did, ...f }) => f)).toEqual(drawn.faults.map(({ did, ...f }) => f));
    // Each starts no earlier than its time (and stops after its duration).
    for (const [i, o] of replayed.started.entries()) {
      expect(o.time / NS_PER_MS).toBeGreaterThanOrEqual((drawn.faults[i] as ScheduledFault).atMs);
    }
  });

  it('dropping a fault leaves what the others do unchanged, and a plan fixes the duration', async () => {
    const drawn = await schedule(new FakeNemesis(), { seed: 3 });
    const kept = drawn.faults.filter((_, i) => i % 2 === 0).map((f) => ({ ...f, durationMs: 5 }));
    const replayed = await schedule(new FakeNemesis(), { forMs: 2000, given: kept });
    expect(replayed.started.map((o) => (o.value as { node: string }).node)).toEqual(
      kept.map((f) => (f.did as { node: string }).node),
    );
    expect(replayed.started.map((o) => (o.value as { ms: number }).ms)).toEqual(kept.map(() => 5));
  });

  it('leaves out of the schedule a fault that found nothing to fault', async () => {
    const nemesis = new FakeNemesis(2);
    const drawn = await schedule(nemesis, { seed: 5 });
    expect(nemesis.starts).toBeGreaterThan(drawn.faults.length);
    expect(drawn.faults.length).toBe(drawn.started.length);
    expect(drawn.ops.filter((o) => o.type === 'fail').length).toBe(nemesis.starts - drawn.faults.length);
  });

  it('keeps each fault in effect for at least its length, as the history records it', async () => {
    // Lengths that are not whole milliseconds apart from the timer's: a timer alone can end
    // up to 1 ms early against the recorded stamps.
    const given = Array.from({ length: 30 }, (_, i) => ({ kind: 'pause-node', atMs: i * 4, durationMs: 2, seed: i }));
    const run = await schedule(new FakeNemesis(), { given, forMs: 2000 });
    const windows = faultWindows(run.ops.map((op, index) => ({ ...op, index })));
    expect(windows).toHaveLength(30);
    for (const w of windows) expect((w.end as number) - w.start).toBeGreaterThanOrEqual(2 * NS_PER_MS);
  });

  it('opens a window where the start says its fault took effect, not at its completion', async () => {
    // A start that warps processes one by one, each a helper run: in effect from the first.
    class SlowStart extends FakeNemesis {
      override async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
        const started = await super.start(rng, plan);
        const inEffectFrom = monotonicNow();
        await new Promise((r) => setTimeout(r, 20));
        return started && { ...started, inEffectFrom };
      }
    }
    const given = [{ kind: 'pause-node', atMs: 0, durationMs: 5, seed: 1 }];
    const run = await schedule(new SlowStart(), { given, forMs: 1000 });
    const ops = run.ops.map((op, index) => ({ ...op, index }));
    const [invoke, ok] = ops.filter((o) => o.f === 'start-pause-node');
    const [window] = faultWindows(ops);
    expect(window?.start).toBe((ok?.value as { inEffectFrom?: number } | undefined)?.inEffectFrom);
    expect(window?.start).toBeGreaterThanOrEqual(invoke?.time as number);
    expect(ok?.time).toBeGreaterThan(window?.start as number);
    expect(window?.value).not.toHaveProperty('inEffectFrom'); // the window's start says it
    // A stored time outside the start's own invoke and ok (a hostile history) is not believed.
    const planted = ops.map((o) => (o === ok ? { ...o, value: { inEffectFrom: -1 } } : o));
    expect(faultWindows(planted)[0]?.start).toBe(ok?.time);
    const words = ops.map((o) => (o === ok ? { ...o, value: { inEffectFrom: 'soon' } } : o));
    expect(faultWindows(words)[0]?.start).toBe(ok?.time);
  });

  it('stops applying a given schedule at the time limit', async () => {
    const given = [0, 50, 5000].map((atMs, i) => ({ kind: 'pause-node', atMs, durationMs: 10, seed: i }));
    const nemesis = new FakeNemesis();
    const run = await schedule(nemesis, { given, forMs: 300 });
    expect(run.faults.map((f) => f.atMs)).toEqual([0, 50]);
    expect(nemesis.stops).toBe(2);
  });
});
