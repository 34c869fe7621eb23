import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { cgroupOwner, clientCgroupName, ownerAlive, ownerLabel, runLabels } from './labels.js';

describe("a run's labels and its owner", () => {
  it('names this process as host, pid and start time, and finds it alive', () => {
    const [host, pid, start] = ownerLabel().split(':');
    expect(host).toBe(hostname());
    expect(pid).toBe(String(process.pid));
    expect(start).toMatch(/^\d+$/);
    expect(ownerAlive(ownerLabel())).toBe(true);
  });

  it('finds a runner gone when its pid now has another start time, or none', () => {
    const [, , start] = ownerLabel().split(':');
    expect(ownerAlive(`${hostname()}:${process.pid}:${Number(start) + 1}`)).toBe(false);
    expect(ownerAlive(`${hostname()}:4194303:1`)).toBe(false);
  });

  it("takes another host's runner for alive (not ours to judge), and no label or a broken one for gone", () => {
    expect(ownerAlive(`not-${hostname()}:1:1`)).toBe(true);
    expect(ownerAlive(undefined)).toBe(false);
    expect(ownerAlive('')).toBe(false);
    expect(ownerAlive(`${hostname()}:x:1`)).toBe(false);
    expect(ownerAlive(`${hostname()}:-3:1`)).toBe(false);
  });

  it("labels a run's containers with the run, this runner and the role", () => {
    expect(runLabels('ab12', 'node')).toEqual({
      'org.lockchaos.run': 'ab12',
      'org.lockchaos.owner': ownerLabel(),
      'org.lockchaos.role': 'node',
    });
  });
});

describe("a client program's cgroup name", () => {
  it('holds the run and its runner, read back as the owner label', () => {
    const owner = `${hostname()}:4242:99887`;
    const name = clientCgroupName('ab12cd', 'c3-p7', owner);
    expect(name).toBe('ab12cd-4242-99887-c3-p7');
    expect(cgroupOwner(name)).toEqual({ runId: 'ab12cd', owner });
  });

  it("reads this runner's own as alive, and is no owner's when not one of ours", () => {
    const mine = cgroupOwner(clientCgroupName('ff00', 'c0'));
    expect(mine?.runId).toBe('ff00');
    expect(ownerAlive(mine?.owner)).toBe(true);
    expect(cgroupOwner('user.slice')).toBeUndefined();
    expect(cgroupOwner('ab12-notapid-1-c0')).toBeUndefined();
  });
});
