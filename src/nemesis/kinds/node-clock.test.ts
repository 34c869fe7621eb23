import { describe, expect, it } from 'vitest';
import type { ClockChange, ClockWarper, WarpState } from '../../cluster/clock-warp.js';
import type { NodeHandle } from '../../cluster/cluster.js';
import { Rng } from '../../util/rng.js';
import { nodeFaultContext } from '../context.js';
import { clockMode, type FaultSpec, modeRate } from '../kind.js';
import { parseNemesisSpec } from '../spec.js';
import { drawNodeClock, NodeClockWarp, nodeClock } from './node-clock.js';

describe('node-clock', () => {
  it('draws the same sizes in the same order whatever the mode, each mode its own change', () => {
    const draw = (mode: Parameters<typeof drawNodeClock>[0]) => drawNodeClock(mode, 1000, new Rng(7));
    const forward = draw('forward');
    expect(forward.change.jumpMs).toBeGreaterThanOrEqual(500);
    expect(forward.change.jumpMs).toBeLessThanOrEqual(1500);
    expect(draw('backward').change.jumpMs).toBe(-(forward.change.jumpMs as number));
    expect(draw('strobe').change).toEqual({ offsetMs: forward.change.jumpMs });
    const rate = draw('rate').change.rate as number;
    expect(rate).toBeGreaterThanOrEqual(0.05);
    expect(rate).toBeLessThanOrEqual(0.5);
    // While held, past the whole lease: the held key expires whatever of its TTL was left.
    const held = draw('while-held').change.jumpMs as number;
    expect(held).toBeGreaterThan(1100 - 1);
    expect(held).toBeLessThanOrEqual(1500);
    // The draws after it (which node) do not depend on the mode.
    const after = (mode: Parameters<typeof drawNodeClock>[0]) => {
      const rng = new Rng(7);
      drawNodeClock(mode, 1000, rng);
      return rng.uniform(0, 1);
    };
    expect(after('rate')).toBe(after('forward'));
    expect(after('while-held')).toBe(after('strobe'));
  });

  it('takes a given drift rate ρ (rate=<ρ>) in place of the drawn one, drawing the same numbers', () => {
    expect(drawNodeClock('rate', 1000, new Rng(7), 0.02)).toEqual({ change: { rate: 0.02 }, value: { rate: 0.02 } });
    const after = (given?: number) => {
      const rng = new Rng(7);
      drawNodeClock('rate', 1000, rng, given);
      return rng.uniform(0, 1);
    };
    expect(after(0.02)).toBe(after());
    const spec = (mode: string) => parseNemesisSpec(`node-clock:bridge:${mode}`)[0];
    expect(modeRate(spec('rate=0.2') as FaultSpec)).toBe(0.2);
    expect(clockMode(spec('rate=0.2') as FaultSpec, 'forward')).toEqual({ mode: 'rate', rate: 0.2 });
    expect(clockMode(parseNemesisSpec('node-clock:one:strobe')[0] as FaultSpec, 'forward')).toEqual({ mode: 'strobe' });
    for (const bad of ['rate=0', 'rate=11', 'rate=-0.95', 'rate=x', 'rate=']) {
      expect(() => parseNemesisSpec(`node-clock:one:${bad}`)).toThrow(/rate=<ρ>/);
    }
    // On the bridge a clock must run fast: its point is to expire the shared key early.
    expect(() => parseNemesisSpec('node-clock:bridge:rate=-0.1')).toThrow(/ρ > 0/);
    expect(parseNemesisSpec('client-clock-warp:holder:rate=-0.3')[0]?.mode).toBe('rate=-0.3');
  });

  it('keeps a drift in effect for a TTL at least: a shorter one moves no lease by its whole ρ', async () => {
    const node = { name: 'redis-1' } as NodeHandle; // no hostPids: nothing is warped
    const ctx = nodeFaultContext('abc', [node], { nemesisIntervalS: 1, ttlMs: 8000 });
    const length = async (mode: 'rate' | 'forward') =>
      (await new NodeClockWarp(ctx, 'one', mode, undefined, undefined, undefined, 0.5).start(new Rng(1)))?.durationMs;
    expect(await length('forward')).toBeLessThan(8000);
    expect(await length('rate')).toBe(8000);
  });

  it('records a node whose processes it cannot reach as not warped, with why, and warps nothing', async () => {
    const node = { name: 'redis-1' } as NodeHandle; // a target's node: no hostPids
    const ctx = nodeFaultContext('abc', [node], { nemesisIntervalS: 1, ttlMs: 1000 });
    const warp = new NodeClockWarp(ctx, 'one', 'forward');
    const started = await warp.start(new Rng(1));
    expect(started?.value).toMatchObject({
      nodes: ['redis-1'],
      mode: 'forward',
      pids: {},
      notWarped: { 'redis-1': expect.stringMatching(/channel/) },
    });
    expect(await warp.stop()).toBeNull();
  });

  it('runs through control channels, and needs the leader capability for the leader aim', () => {
    expect(nodeClock.notOnTargets).toBeUndefined();
    const backend = { name: 'x', description: '', fencing: { supported: false }, nodeSpecs: () => [] };
    const unfit = nodeClock.fit({ kind: 'node-clock', aim: 'leader', mode: 'forward' }, backend as never, 3);
    expect(unfit).toMatchObject({ capability: expect.stringMatching(/leader/) });
    // Through channels, no local check: each node's channel says what it takes (nodeNeeds).
    expect(nodeClock.nodeNeeds?.({ kind: 'node-clock', aim: 'one' })).toEqual(['process', 'clock']);
  });

  it("warps a node's processes where its channel says (a host's helper), and restores them and those born since", async () => {
    const calls: string[] = [];
    const state = (pid: number, warped: boolean): WarpState => ({
      pid,
      action: 'read',
      warped,
      ...(warped ? { offsetMs: { realtime: 1234.56, monotonic: 1234.56, boottime: 1234.56 }, rate: 0 } : {}),
    });
    const warper: ClockWarper = {
      noneFound: 'none',
      pids: async () => [11, 12],
      warp: async (runId, pids, change: ClockChange) => {
        calls.push(`warp ${runId} ${pids} ${JSON.stringify(change)}`);
        return { warped: [11], ended: [12], failed: [] };
      },
      change: async (pid) => state(pid, true),
      read: async (pid) => state(pid, pid !== 14),
      restore: async (_runId, pid) => {
        calls.push(`restore ${pid}`);
        return state(pid, false);
      },
      born: async (warped) => {
        calls.push(`born ${warped}`);
        return [13, 14];
      },
      alive: async () => true,
    };
    const node = { name: 'redis-1', clockWarp: warper } as unknown as NodeHandle;
    const ctx = nodeFaultContext('abc', [node], { nemesisIntervalS: 1, ttlMs: 1000 });
    const warp = new NodeClockWarp(ctx, 'one', 'forward');
    const started = await warp.start(new Rng(1));
    expect(started?.value).toMatchObject({ nodes: ['redis-1'], pids: { 'redis-1': [11] } });
    expect(started?.value).not.toHaveProperty('notWarped');
    expect(calls[0]).toMatch(/^warp abc 11,12 \{"jumpMs":\d+\}$/);
    const stopped = await warp.stop();
    // Read through the warper (no server time here): the warp's own offset, to a tenth.
    expect(stopped).toMatchObject({
      restored: ['redis-1'],
      clock: { during: { 'redis-1': 1234.6 } },
      inherited: { 'redis-1': [13] },
    });
    expect(calls.slice(1)).toEqual(['restore 11', 'born 11', 'restore 13']);
  });
});
