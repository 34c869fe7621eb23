/**
 * A run's teardown without Docker: the order is the one the runner's finally block kept
 * before the phases were named, whatever order the resources began in, and a failed end
 * stops the teardown there as that block did.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type RunEnd, Teardown } from './teardown.js';

const swept = vi.hoisted(() => ({ ended: [] as string[], fails: false }));
vi.mock('../cluster/reclaim.js', () => ({
  removeRunCgroups: async () => {
    swept.ended.push('cgroups');
    if (swept.fails) throw new Error('cgroupfs is read-only');
    return 0;
  },
}));
vi.mock('../cluster/remove-resources.js', () => ({
  removeResources: async () => {
    swept.ended.push('containers');
    if (swept.fails) throw new Error('docker is gone');
  },
}));

beforeEach(() => {
  swept.ended.length = 0;
  swept.fails = false;
});

/** A teardown with every resource begun, in the order a run begins them. */
function begun(end: (name: RunEnd) => void = (name) => swept.ended.push(name)): Teardown {
  const teardown = new Teardown('r1', () => {});
  for (const name of ['workers', 'target', 'heal', 'faults', 'slot', 'progress'] as const) {
    teardown.on(name, () => end(name));
  }
  return teardown;
}

describe('Teardown', () => {
  it('heals, gives the slot back, kills the workers, then closes the faults, the target and the containers', async () => {
    await begun().run();
    expect(swept.ended).toEqual(['progress', 'heal', 'slot', 'workers', 'cgroups', 'faults', 'target', 'containers']);
  });

  it("removes the run's cgroups and containers when nothing else began", async () => {
    await new Teardown('r1', () => {}).run();
    expect(swept.ended).toEqual(['cgroups', 'containers']);
  });

  it('logs a sweep that failed and goes on', async () => {
    swept.fails = true;
    const lines: string[] = [];
    await new Teardown('r1', (line) => lines.push(line)).run();
    expect(swept.ended).toEqual(['cgroups', 'containers']);
    expect(lines).toEqual([
      'client program cgroups of run r1 not removed: Error: cgroupfs is read-only',
      'cleanup of run r1 failed: Error: docker is gone',
    ]);
  });

  it('stops at an end that throws, leaving those after it undone', async () => {
    const teardown = begun((name) => {
      swept.ended.push(name);
      if (name === 'faults') throw new Error('a proxy would not close');
    });
    await expect(teardown.run()).rejects.toThrow('a proxy would not close');
    expect(swept.ended).toEqual(['progress', 'heal', 'slot', 'workers', 'cgroups', 'faults']);
  });
});
