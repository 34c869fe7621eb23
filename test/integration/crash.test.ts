import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { docker } from '../../src/cluster/docker-engine.js';
import { LABEL_OWNER, LABEL_ROLE, LABEL_RUN } from '../../src/cluster/labels.js';
import { orphanWorkers } from '../../src/cluster/reclaim.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { CLI, freshStore, leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const store = freshStore();

describe.skipIf(skip)('a runner killed with SIGKILL mid-run', () => {
  it('leaves resources that the next start removes', async () => {
    let pid = 0;
    const running = lockchaos(
      ['run', '--backend', 'redis', '--nemesis', 'client-pause', '--time-limit', '60', '--seed', '5', '--store', store],
      { onSpawn: (p) => (pid = p), until: 'exit' },
    );
    // Wait until its containers exist and its clients are working.
    for (let i = 0; i < 200 && (await leftovers(pid)).length < 3; i++) await sleep(100);
    await sleep(1500);
    expect((await leftovers(pid)).length).toBe(3);
    process.kill(pid, 'SIGKILL');
    await running;
    expect((await leftovers(pid)).length).toBe(3); // nothing ran the teardown
    // The next start sweeps what the dead runner left, then runs and cleans up itself.
    const next = await lockchaos(['run', '--backend', 'redis', '--time-limit', '2', '--seed', '6', '--store', store]);
    expect(next.stderr).toMatch(
      /removed what crashed runs left: [2-9]\d* containers, [1-9]\d* networks?, \d+ workers?/,
    );
    expect(next.code).toBe(0);
    expect(await leftovers(pid)).toEqual([]);
    expect(await leftovers(next.pid)).toEqual([]);
    expect(orphanWorkers()).toEqual([]);
  });

  it('Ctrl-C (SIGINT) stops the run, tears down and still checks what was recorded', async () => {
    let pid = 0;
    let sent = false;
    // Once the clients record operations (the progress line), not after a guessed delay: a
    // busy machine may still be starting the cluster, and a run interrupted then has nothing to check.
    const running = lockchaos(['run', '--backend', 'redis', '--time-limit', '60', '--seed', '7', '--store', store], {
      onSpawn: (p) => (pid = p),
      onStderr: (stderr) => {
        if (sent || !/progress: /.test(stderr)) return;
        sent = true;
        process.kill(pid, 'SIGINT');
      },
    });
    const r = await running;
    expect(sent).toBe(true);
    expect(r.stderr).toMatch(/SIGINT: stopping the run/);
    // What was recorded is checked, but a run cut short is not a valid one: unknown, 130.
    expect(r.stdout).toMatch(/verdict: unknown .*interrupted \(SIGINT\)/);
    expect(r.code).toBe(130);
    expect(await leftovers(pid)).toEqual([]);
  });

  it('its client workers end quietly when they find the runner gone (no ERR_IPC_CHANNEL_CLOSED stacks)', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--backend', 'redis', '--time-limit', '60', '--seed', '9', '--store', store],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    // Killed once its clients record operations; the output closes when the workers, which
    // hold it, have exited: their last words are in stderr.
    child.stderr.on('data', (d) => {
      stderr += d;
      if (/progress: /.test(stderr)) child.kill('SIGKILL');
    });
    await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toMatch(/progress: /);
    expect(stderr.slice(stderr.indexOf('progress: '))).not.toMatch(/ERR_IPC_CHANNEL_CLOSED|\n\s+at /);
    expect(orphanWorkers()).toEqual([]);
    expect((await lockchaos(['cleanup'])).code).toBe(0);
    expect(await leftovers(child.pid)).toEqual([]);
  });

  it('lockchaos cleanup removes what a killed runner left', async () => {
    let pid = 0;
    const running = lockchaos(['run', '--backend', 'redis', '--time-limit', '60', '--seed', '8', '--store', store], {
      onSpawn: (p) => (pid = p),
      until: 'exit',
    });
    for (let i = 0; i < 200 && (await leftovers(pid)).length < 3; i++) await sleep(100);
    process.kill(pid, 'SIGKILL');
    await running;
    const r = await lockchaos(['cleanup']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/removed [2-9]\d* containers, [1-9]\d* networks/);
    expect(await leftovers(pid)).toEqual([]);
  });

  it("lockchaos cleanup names a crashed run's network that something still uses, and counts it", async () => {
    // A runner that is gone (no process has this pid), and a container someone else attached.
    const labels = { [LABEL_RUN]: 'c1ea0b5e', [LABEL_OWNER]: `${hostname()}:999999999:0`, [LABEL_ROLE]: 'network' };
    const network = await docker().createNetwork({ Name: 'lockchaos-c1ea0b5e', Labels: labels });
    const other = await docker().createContainer({
      Image: 'lockchaos/node:3',
      Cmd: ['sleep', '600'],
      HostConfig: { NetworkMode: 'lockchaos-c1ea0b5e' },
    });
    try {
      await other.start();
      const r = await lockchaos(['cleanup']);
      expect(r.code).toBe(0);
      expect(r.stdout.trim()).toMatch(/^removed 0 containers, 0 networks, .*, 1 networks left in use$/);
      expect(r.stderr).toMatch(/^not removed: network lockchaos-c1ea0b5e: the engine counts an endpoint in it/);
      await other.remove({ force: true });
      const again = await lockchaos(['cleanup']);
      expect(again.stdout.trim()).toMatch(/^removed 0 containers, 1 networks, .*targets healed$/);
    } finally {
      await other.remove({ force: true }).catch(() => undefined);
      await network.remove().catch(() => undefined);
    }
  });
});
