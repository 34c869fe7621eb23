/**
 * The postgres image has no iptables (nor does it need any capability): partitions and
 * packet loss reach it from a helper container in its network namespace, labelled with
 * the run and removed with it, also after a runner is killed with SIGKILL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresNodeSpec } from '../../src/backends/postgres-node.js';
import { type Cluster, type NodeHandle, startCluster } from '../../src/cluster/cluster.js';
import { docker, ensureImage, POSTGRES_IMAGE } from '../../src/cluster/docker-engine.js';
import { LABEL_ROLE, LABEL_RUN } from '../../src/cluster/labels.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { type NodeFaultContext, nodeFaultContext } from '../../src/nemesis/context.js';
import { PacketLoss } from '../../src/nemesis/kinds/loss.js';
import { Partition } from '../../src/nemesis/kinds/partition.js';
import type { FaultStart } from '../../src/nemesis/nemesis.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { Rng } from '../../src/util/rng.js';
import { expectFencingHoldsUnderPauses, freshStore, leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
if (!skip) await ensureImage({ build: true, images: [POSTGRES_IMAGE] });
const store = freshStore();

/** Can `from` open a TCP connection to `to`'s PostgreSQL? (bash's /dev/tcp, from inside from) */
async function reaches(from: NodeHandle, to: NodeHandle): Promise<boolean> {
  const r = await from.exec(['timeout', '2', 'bash', '-c', `exec 3<>/dev/tcp/${to.ip}/5432`]);
  return r.exitCode === 0;
}

const helpers = async (runId: string) =>
  docker().listContainers({ all: true, filters: { label: [`${LABEL_RUN}=${runId}`, `${LABEL_ROLE}=net-helper`] } });

describe.skipIf(skip)('network faults on an image without iptables (postgres)', () => {
  const runId = `test${randomBytes(3).toString('hex')}`;
  let cluster: Cluster;
  let ctx: NodeFaultContext;
  const names = ['pg-1', 'pg-2', 'pg-3'];
  const node = (name: string) => cluster.node(name);

  beforeAll(async () => {
    cluster = await startCluster(
      runId,
      names.map((n) => postgresNodeSpec(n, 5000)),
    );
    ctx = nodeFaultContext(runId, cluster.nodes, { nemesisIntervalS: 1, ttlMs: 1000 });
  });
  afterAll(async () => {
    await removeResources({ runId });
  });

  it('runs a server whose image has no iptables, in a container with no added capability', async () => {
    const r = await node('pg-1').exec(['sh', '-c', 'command -v iptables || echo none']);
    expect(r.output.trim()).toBe('none');
    const info = await docker().getContainer(node('pg-1').containerId).inspect();
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
  });

  it('partition:isolate-one cuts a node off through the helper, and heals', async () => {
    expect(await reaches(node('pg-1'), node('pg-3'))).toBe(true);
    const p = new Partition(ctx, 'isolate-one');
    const started = await p.start(new Rng(1));
    const drops = ((started as FaultStart).value as { drops: Record<string, string[]> }).drops;
    const lonely = Object.entries(drops).find(([, d]) => d.length === 2)?.[0] as string;
    const [other, third] = names.filter((x) => x !== lonely) as [string, string];
    expect(await reaches(node(other), node(lonely))).toBe(false);
    expect(await reaches(node(lonely), node(other))).toBe(false);
    expect(await reaches(node(other), node(third))).toBe(true);
    // The rules live in the node's namespace, written by a labelled helper container.
    expect((await node(lonely).netExec(['iptables', '-S', 'INPUT'])).output).toContain(runId);
    expect((await helpers(runId)).length).toBeGreaterThanOrEqual(1);
    await p.stop();
    expect(await reaches(node(other), node(lonely))).toBe(true);
    expect(await reaches(node(lonely), node(other))).toBe(true);
    expect((await node(lonely).netExec(['iptables', '-S', 'INPUT'])).output).not.toContain(runId);
  });

  it('loss adds a statistic DROP rule in the node namespace, and heals', async () => {
    const loss = new PacketLoss(ctx, 'one');
    const started = await loss.start(new Rng(2));
    const [name] = ((started as FaultStart).value as { nodes: string[] }).nodes;
    const rules = (await node(name as string).netExec(['iptables', '-S', 'INPUT'])).output;
    expect(rules).toMatch(/statistic --mode random --probability 0\.2/);
    await loss.stop();
    expect((await node(name as string).netExec(['iptables', '-S', 'INPUT'])).output).not.toContain('statistic');
  });

  it('the helpers go with the run', async () => {
    expect((await helpers(runId)).length).toBeGreaterThan(0);
    await removeResources({ runId });
    expect(await helpers(runId)).toEqual([]);
  });
});

describe.skipIf(skip)('the postgres backend', () => {
  it('keeps the data safe with fencing under client pauses, while sessions are lost', async () => {
    await expectFencingHoldsUnderPauses(store, ['--backend', 'postgres']);
  });

  it('leaves nothing, helper containers included, after a SIGKILL of the runner and a cleanup', async () => {
    let pid = 0;
    const running = lockchaos(
      ['run', '--backend', 'postgres', '--nemesis', 'loss', '--nemesis-interval', '0.5', '--time-limit', '60'],
      { onSpawn: (p) => (pid = p) },
    );
    // network, postgres, store, and the helper the first loss fault starts
    for (let i = 0; i < 300 && (await leftovers(pid)).length < 4; i++) await sleep(100);
    const before = await leftovers(pid);
    expect(before.some((x) => /-net\d+$/.test(x))).toBe(true);
    process.kill(pid, 'SIGKILL');
    await running;
    expect((await leftovers(pid)).length).toBeGreaterThanOrEqual(4);
    const r = await lockchaos(['cleanup']);
    expect(r.code).toBe(0);
    expect(await leftovers(pid)).toEqual([]);
  });
});
