/**
 * The sweep of client program cgroups: those of a runner that is gone are emptied and
 * removed, a live runner's are kept. Real cgroups (skipped where none can be made).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cgroupPids, cgroupSupport, createCgroup, removeCgroup } from '../util/cgroup.js';
import { clientCgroupName } from './labels.js';
import { reclaimCgroups } from './reclaim.js';

describe.skipIf(!('parent' in cgroupSupport()))('reclaimCgroups', () => {
  it("removes a dead runner's cgroup, what runs in it too, and keeps a live runner's", async () => {
    const runId = randomBytes(4).toString('hex');
    // A runner that is gone: a pid with another start time than any process has.
    const dead = createCgroup(clientCgroupName(runId, 'c0', 'host:4194303:1')) as string;
    const live = createCgroup(clientCgroupName(runId, 'c1')) as string;
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore', detached: true });
    writeFileSync(join(dead, 'cgroup.procs'), String(sleeper.pid));
    const exited = new Promise((resolve) => sleeper.once('exit', (_code, signal) => resolve(signal)));
    try {
      expect(cgroupPids(dead)).toEqual([sleeper.pid]);
      expect(await reclaimCgroups()).toBeGreaterThanOrEqual(1);
      expect(await exited).toBe('SIGKILL');
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(live)).toBe(true);
    } finally {
      sleeper.kill('SIGKILL');
      await removeCgroup(live);
    }
  });
});
