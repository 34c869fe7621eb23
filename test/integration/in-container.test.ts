/**
 * lockchaos run from inside a container with the engine's socket mounted (a CI job in a
 * container; the way to run it on Docker Desktop, Colima or a remote engine): the host's
 * Node and this checkout mounted into a container of the node image. The bridge networks
 * of a run are not reachable from there until this container joins them (client-path.ts):
 * doctor names that path, and gc-pause gives the verdicts it gives on the host.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { NODE_IMAGE } from '../../src/cluster/docker-engine.js';
import { packageRoot } from '../../src/util/paths.js';
import { requireEngine, runIdIn, runLeftovers } from './support.js';

const skip = await requireEngine();

/** `lockchaos ARGS` in a fresh container of the node image, with the socket, Node and this checkout mounted. */
async function inContainer(args: string[], env: Record<string, string> = {}) {
  const docker = [
    ...['run', '--rm', '-v', '/var/run/docker.sock:/var/run/docker.sock'],
    ...['-v', `${process.execPath}:/usr/local/bin/node:ro`, '-v', `${packageRoot}:/project:ro`],
    ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    ...[NODE_IMAGE, 'node', '/project/dist/src/cli/main.js', ...args],
  ];
  try {
    const { stdout, stderr } = await promisify(execFile)('docker', docker, { maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe.skipIf(skip)('lockchaos inside a container with the engine socket', () => {
  it('doctor names the path it uses: this container joins the run network', async () => {
    const r = await inContainer(['doctor']);
    expect(r.stdout).toMatch(
      /^ok\s+client path\s+join: this process's container \([0-9a-f]{12}\) joins each run's network/m,
    );
    // Without joining, the run's network is out of reach from a container: the reason for the path.
    const direct = await inContainer(['doctor'], { LOCKCHAOS_CLIENT_PATH: 'direct' });
    expect(direct.stdout).toMatch(/^FAIL\s+client path\s+direct: .* did not answer/m);
  });

  it('gc-pause reaches the verdicts it reaches on the host: unfenced INVALID, fenced valid', async () => {
    const unfenced = await inContainer([
      'run',
      '--scenario',
      'gc-pause',
      '--fencing',
      'off',
      '--seed',
      '8',
      '--stop-on-violation',
      '--store',
      '/tmp/store',
    ]);
    expect(unfenced.stdout).toMatch(/verdict: INVALID/);
    expect(unfenced.code).toBe(1);
    const fenced = await inContainer([
      'run',
      '--scenario',
      'gc-pause',
      '--fencing',
      'on',
      '--seed',
      '8',
      '--time-limit',
      '10',
      '--store',
      '/tmp/store',
    ]);
    expect(fenced.stdout).toMatch(/fencing\s+valid/);
    expect(fenced.stdout).toMatch(/verdict: valid/);
    expect(fenced.code).toBe(0);
    // Each run removed its containers and its network (this container left it first). Its
    // own, by run id: the runner's pid is the container's, and other runs may share the engine.
    const runIds = [unfenced, fenced].map((r) => runIdIn(r.stderr));
    expect(runIds).toEqual([expect.stringMatching(/^[0-9a-f]{8}$/), expect.stringMatching(/^[0-9a-f]{8}$/)]);
    for (const runId of runIds) expect(await runLeftovers(runId as string)).toEqual([]);
  });
});
