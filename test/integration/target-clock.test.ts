/**
 * node-clock on a target's host over SSH, on real sshd hosts (target-hosts.ts): the
 * clock-warp helper is copied to the host and moves its Redis server's clock there, by a
 * jump, a rate and a strobe, read back from the server itself (Redis TIME, from here); the
 * true clock comes back at stop, and the ledger and the host keep nothing. A runner killed
 * mid-warp leaves its warp recorded in its ledger and on the host: the next start's heal
 * restores it, copying the helper again when it is gone, and cleanup --target's heal does
 * from the host's record alone. Through the CLI, Kleppmann's jump on the host's Redis
 * overtakes a kept holder. A host whose root cannot ptrace the service (another user's
 * process, no CAP_SYS_PTRACE), or one reached as a user who is not root, refuses node-clock
 * in one line before the run starts. An existing container (docker:) is warped from here.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDIS_SERVER_TIME } from '../../src/backends/redis-node.js';
import { clockWarpSupport } from '../../src/cluster/clock-warp.js';
import { warpRecords } from '../../src/cluster/clock-warp-records.js';
import { docker } from '../../src/cluster/docker-engine.js';
import { ownerLabel } from '../../src/cluster/labels.js';
import { removeResources } from '../../src/cluster/remove-resources.js';
import { dataStoreNodeSpec } from '../../src/datastore/datastore.js';
import { nodeFaultContext } from '../../src/nemesis/context.js';
import { NodeClockWarp } from '../../src/nemesis/kinds/node-clock.js';
import { healHosts, reclaimTargets } from '../../src/target/heal.js';
import { readInventory, type SshChannel, type TargetNode } from '../../src/target/inventory.js';
import { Ledger, ledgerDir } from '../../src/target/ledger.js';
import { SshHost } from '../../src/target/ssh.js';
import { readyHostClock, runnerClockHelper } from '../../src/target/ssh-clock.js';
import { startTargetCluster } from '../../src/target/target-cluster.js';
import { DockerTargetNode, SshNode } from '../../src/target/target-node.js';
import { UserError } from '../../src/util/errors.js';
import { sleep } from '../../src/util/monotonic-clock.js';
import { Rng } from '../../src/util/rng.js';
import { requireEngine, runAndRead } from './support.js';
import { onHost, REDIS_COMMAND, removeHosts, startHosts, type TestHost, type TestHosts } from './target-hosts.js';

const skip = await requireEngine();
const helper = runnerClockHelper();
if ('why' in helper && process.env.CI) throw new Error(`CI=true and ${helper.why}`);
const PRIVATE = '/var/tmp/lockchaos-0';

type Started = {
  jumpMs?: number;
  rate?: number;
  pids: Record<string, number[]>;
  clock: { before: Record<string, number> };
};
type Stopped = { clock: { during: Record<string, number>; after: Record<string, number> }; notRestored?: string[] };

describe.skipIf(skip || 'why' in helper)('node-clock on a host over SSH', () => {
  let hosts: TestHosts;
  let dir: string;
  let redis: TestHost;
  const inventory = (file: string, host: TestHost, user = 'root') => {
    const path = join(dir, file);
    const ssh = { user, key: hosts.key, knownHosts: hosts.knownHosts };
    writeFileSync(path, JSON.stringify({ defaults: { ssh }, nodes: [{ name: 'redis-1', address: host.ip }] }));
    return path;
  };
  const targetOf = (file: string) => readInventory(file, { backend: 'redis', port: 6379 }).nodes[0] as TargetNode;
  /** What the host keeps of run `runId` in its private folder. */
  const filesOf = (runId: string) => onHost(redis, `ls -A ${PRIVATE} 2>/dev/null | grep -- ${runId} || true`);
  const offset = (node: { ip: string; port: number }) => REDIS_SERVER_TIME.offsetMs(node);
  /** Within a few ms: TIME is read against the middle of its round trip. */
  const near = (got: number | undefined, want: number) => expect(Math.abs((got as number) - want)).toBeLessThan(10);

  beforeAll(() => {
    hosts = startHosts([
      { name: 'redis-1', command: REDIS_COMMAND },
      // The service as another user: root without CAP_SYS_PTRACE (a container's default) cannot ptrace it.
      {
        name: 'redis-nobody',
        command: () => `setpriv --reuid=65534 --regid=65534 --clear-groups ${REDIS_COMMAND()} --dir /tmp`,
      },
    ]);
    redis = hosts.hosts[0] as TestHost;
    dir = mkdtempSync(join(tmpdir(), 'lcx-target-clock-'));
  });
  afterAll(() => removeHosts(hosts));
  beforeEach(() => {
    // A ledger of this test's own: its heals touch no other run's entries.
    process.env.LOCKCHAOS_STATE_DIR = mkdtempSync(join(dir, 'state-'));
  });

  /** A run's node on the Redis host, its record and the helper there, as a run's start leaves them. */
  async function openHost(runId: string) {
    const target = targetOf(inventory('redis.yaml', redis));
    const ledger = new Ledger(runId, [target]);
    ledger.save();
    const host = new SshHost(target.control as SshChannel);
    const node = new SshNode(
      target,
      async () => undefined,
      host,
      runId,
      (pid, warped) => ledger.markWarped(target.name, pid, warped),
    );
    await node.record(ownerLabel());
    expect(await readyHostClock(host, node.scripts)).toBeUndefined();
    expect(filesOf(runId)).toContain(`lockchaos-${runId}.clock-warp`);
    const ctx = nodeFaultContext(runId, [node], { nemesisIntervalS: 1, ttlMs: 2000 });
    return { node, ledger, host, ctx };
  }

  /** `body` on a fresh run's node of the Redis host; whatever it left healed after, its channel closed. */
  async function onFreshRun(body: (run: Awaited<ReturnType<typeof openHost>> & { runId: string }) => Promise<void>) {
    const runId = randomBytes(6).toString('hex');
    const run = await openHost(runId);
    try {
      await body({ ...run, runId });
    } finally {
      await run.node.heal().catch(() => undefined);
      await run.host.close();
    }
  }

  it("jumps and drifts the host's Redis clock, read back with TIME, and restores it; nothing is left", async () => {
    await onFreshRun(async ({ node, ledger, ctx, runId }) => {
      near(await offset(node), 0);
      // A jump forward: the server's TIME is ahead by it, the ledger and the host record the pid.
      const jump = new NodeClockWarp(ctx, 'one', 'forward', REDIS_SERVER_TIME);
      const v = (await jump.start(new Rng(3)))?.value as Started;
      const pid = v.pids['redis-1']?.[0] as number;
      expect(Number(onHost(redis, 'pgrep -x redis-server'))).toBe(pid);
      expect(ledger.recorded.warped).toEqual([{ node: 'redis-1', pid }]);
      expect(onHost(redis, `cat ${PRIVATE}/lockchaos-${runId}.warped`)).toMatch(new RegExp(`^${pid} \\d+$`));
      near(v.clock.before['redis-1'], 0);
      const during = await offset(node);
      console.log(`host redis clock +${v.jumpMs} ms: TIME read ${during.toFixed(1)} ms ahead`);
      near(during, v.jumpMs as number);
      const stopped = (await jump.stop()) as Stopped;
      near(stopped.clock.during['redis-1'], v.jumpMs as number);
      near(stopped.clock.after['redis-1'], 0);
      expect(ledger.recorded.warped).toEqual([]);

      // A rate: the offset grows by ρ of the time passed (within 1%).
      const drift = new NodeClockWarp(ctx, 'one', 'rate', REDIS_SERVER_TIME, undefined, undefined, 0.2);
      await drift.start(new Rng(3));
      const t0 = Date.now();
      const a = await offset(node);
      await sleep(3000);
      const b = await offset(node);
      const measured = (b - a) / (Date.now() - t0);
      console.log(`host redis clock rate ×1.2: TIME drifted ${(b - a).toFixed(1)} ms in ${Date.now() - t0} ms`);
      expect(Math.abs(measured - 0.2)).toBeLessThan(0.01);
      const after = (await drift.stop()) as Stopped;
      expect(after.notRestored).toBeUndefined();
      near(after.clock.after['redis-1'], 0);
      near(await offset(node), 0);
      expect(ledger.recorded.warped).toEqual([]);
      // The heal at the end removes the helper and the run's files.
      expect(await node.heal()).toBeUndefined();
      expect(filesOf(runId)).toBe('');
      ledger.remove();
      expect(readdirSync(ledgerDir())).toEqual([]);
    });
  });

  it("a runner killed mid-warp: the next start's heal restores the clock from the ledger, the helper copied again", async () => {
    await onFreshRun(async ({ node, ledger, ctx, runId }) => {
      const jump = new NodeClockWarp(ctx, 'one', 'backward', REDIS_SERVER_TIME);
      const v = (await jump.start(new Rng(5)))?.value as Started;
      near(await offset(node), v.jumpMs as number);
      // The runner is gone (its entry's owner a process that is not), and with it nothing was stopped:
      // the ledger names the warp; someone removed the helper from the host meanwhile.
      const entry = { ...ledger.recorded, owner: `${hostname()}:999999999:1` };
      writeFileSync(join(ledgerDir(), `${runId}.json`), JSON.stringify(entry));
      onHost(redis, `rm ${PRIVATE}/lockchaos-${runId}.clock-warp`);
      const healed = await reclaimTargets();
      expect(healed).toEqual({ runs: 1, problems: [], clocks: 1 });
      near(await offset(node), 0);
      expect(filesOf(runId)).toBe('');
      expect(readdirSync(ledgerDir())).toEqual([]);
    });
  });

  it("strobes the host's clock over ssh; cleanup --target's heal restores a warp from the host's own record", async () => {
    await onFreshRun(async ({ node, ledger, ctx, runId }) => {
      const strobe = new NodeClockWarp(ctx, 'one', 'strobe', REDIS_SERVER_TIME);
      await strobe.start(new Rng(3));
      await sleep(800);
      const stopped = (await strobe.stop()) as Stopped & { flips: number };
      console.log(`host redis clock strobe: ${stopped.flips} flips in 800 ms`);
      expect(stopped.flips).toBeGreaterThan(2);
      near(stopped.clock.after['redis-1'], 0);
      // A warp left by a runner whose ledger went with it (a CI job's container): the host's record heals it.
      const jump = new NodeClockWarp(ctx, 'one', 'forward', REDIS_SERVER_TIME);
      const v = (await jump.start(new Rng(4)))?.value as Started;
      near(await offset(node), v.jumpMs as number);
      ledger.remove();
      const healed = await healHosts(readInventory(inventory('redis.yaml', redis), { backend: '', port: 0 }), 'all');
      expect(healed).toMatchObject({ runs: 1, problems: [], clocks: 1 });
      near(await offset(node), 0);
      expect(filesOf(runId)).toBe('');
    });
  });

  it("redis-real-clock-jump on the host: its server's clock overtakes a kept holder, TIME says so, all is restored", async () => {
    const r = await runAndRead(join(dir, 'store'), [
      ...['--scenario', 'redis-real-clock-jump', '--target', inventory('redis.yaml', redis)],
      ...['--fencing', 'off', '--time-limit', '8', '--seed', '1'],
    ]);
    type Start = Started & { holder: { process: number } };
    type Stop = Stopped & { holder: { anotherHeld: boolean } };
    const ops = (f: string) => r.history.filter((o) => o.f === f && o.type === 'ok').map((o) => o.value);
    const starts = ops('start-node-clock') as Start[];
    const stops = ops('stop-node-clock') as Stop[];
    console.log(
      `redis-real-clock-jump on the host: ${JSON.stringify(starts.map((s, i) => [s.jumpMs, s.clock.before, stops[i]?.clock]))}`,
    );
    expect(starts.length).toBeGreaterThan(0);
    const pid = Number(onHost(redis, 'pgrep -x redis-server'));
    starts.forEach((s, i) => {
      expect(s.pids['redis-1']).toEqual([pid]);
      near(s.clock.before['redis-1'], 0);
      const stop = stops[i];
      if (stop === undefined) return; // the last may have been healed at the end
      near(stop.clock.during['redis-1'], s.jumpMs as number);
      near(stop.clock.after['redis-1'], 0);
      expect(stop.holder.anotherHeld).toBe(true);
    });
    expect(r.stdout).toMatch(/mutual-exclusion\s+INVALID/);
    expect(r.code).toBe(1);
    expect(r.left).toEqual([]);
    near(await offset({ ip: redis.ip, port: 6379 }), 0);
    expect(onHost(redis, `ls -A ${PRIVATE} 2>/dev/null | grep lockchaos || true`)).toBe('');
    expect(readdirSync(ledgerDir())).toEqual([]);
  });

  it.runIf(clockWarpSupport().ok)(
    'an existing container (docker:) is warped from this machine, by its host pids',
    async () => {
      const runId = randomBytes(6).toString('hex');
      const target: TargetNode = {
        ...targetOf(inventory('redis.yaml', redis)),
        control: { kind: 'docker', container: redis.container },
      };
      const id = (await docker().getContainer(redis.container).inspect()).Id;
      const node = new DockerTargetNode(target, async () => undefined, id, runId);
      const ctx = nodeFaultContext(runId, [node], { nemesisIntervalS: 1, ttlMs: 2000 });
      const jump = new NodeClockWarp(ctx, 'one', 'forward', REDIS_SERVER_TIME);
      const v = (await jump.start(new Rng(7)))?.value as Started;
      try {
        expect(v.pids['redis-1']?.length).toBeGreaterThan(0);
        near(await offset(node), v.jumpMs as number);
      } finally {
        const stopped = (await jump.stop()) as Stopped;
        near(stopped.clock.after['redis-1'], 0);
      }
      expect(warpRecords((r) => r.runId === runId)).toEqual([]);
    },
  );

  /** What a run's start with node-clock on `file`'s host says: its refusal, one line (the store is never reached). */
  async function refusalOf(file: string): Promise<string> {
    const runId = randomBytes(6).toString('hex');
    // As a run starts its target (run-start.ts), with node-clock's needs.
    const started = startTargetCluster({
      runId,
      inventory: readInventory(file, { backend: 'redis', port: 6379 }),
      ready: [async () => undefined],
      store: dataStoreNodeSpec(),
      needs: new Set(['process', 'clock'] as const),
    });
    try {
      const refusal = await started.then(
        () => 'started',
        (err: unknown) => err,
      );
      expect(refusal).toBeInstanceOf(UserError);
      const line = (refusal as UserError).message;
      console.log(`refused: ${line}`);
      expect(line.split('\n')).toHaveLength(1);
      return line;
    } finally {
      await started.then((c) => c.close()).catch(() => undefined);
      await removeResources({ runId });
    }
  }

  it('a host whose root cannot ptrace the service refuses node-clock in one line before the run starts', async () => {
    const nobody = hosts.hosts[1] as TestHost;
    expect(await refusalOf(inventory('nobody.yaml', nobody))).toMatch(
      /^--target .*nobody\.yaml: redis-1 \S+ \(ssh root@\S+\): node-clock: the clock-warp helper cannot ptrace the service's process \d+ there \(.*\): let root ptrace it \(CAP_SYS_PTRACE/,
    );
    // Its heal took the helper and the record away, and the ledger entry.
    expect(onHost(nobody, `ls -A ${PRIVATE} 2>/dev/null | grep lockchaos || true`)).toBe('');
    expect(readdirSync(ledgerDir())).toEqual([]);
  });

  it('a host reached as a user who is not root refuses node-clock in one line, naming ssh.sudo', async () => {
    // A user who may log in with the test's key (a password of '*': no password, not locked).
    onHost(
      redis,
      "id ops >/dev/null 2>&1 || { useradd -m ops && usermod -p '*' ops; }; mkdir -p /home/ops/.ssh && cp /root/.ssh/authorized_keys /home/ops/.ssh/ && chown -R ops /home/ops/.ssh && chmod 700 /home/ops/.ssh",
    );
    expect(await refusalOf(inventory('ops.yaml', redis, 'ops'))).toMatch(
      /^--target .*ops\.yaml: redis-1 \S+ \(ssh ops@\S+\): node-clock: clock-warp needs root on the host to ptrace the service, and ssh logs in as ops: log in as root or set ssh\.sudo$/,
    );
    expect(onHost(redis, 'ls -A /var/tmp/lockchaos-$(id -u ops) 2>/dev/null | grep lockchaos || true')).toBe('');
  });
});
