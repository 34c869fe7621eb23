/**
 * A lock service lockchaos did not start (--target): hosts made outside lockchaos, each
 * running sshd and the service (a 3-node etcd, a Redis), and one Redis reached with no
 * control channel. The gc-pause story gives the built-in backends' verdicts through them;
 * a node pause and a partition through SSH take effect (the history's record and the host
 * agree); the channel-less node refuses node faults; after a run, Ctrl-C, and a kill -9 of
 * the runner then `cleanup`, the hosts carry nothing of lockchaos's.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockchaos, requireEngine, runAndRead } from './support.js';
import {
  etcdCommand,
  onHost,
  REDIS_COMMAND,
  removeHosts,
  startHosts,
  type TestHost,
  type TestHosts,
} from './target-hosts.js';

const skip = await requireEngine();
const ETCD = ['etcd-1', 'etcd-2', 'etcd-3'];

/** What a host carries of lockchaos's: its rules, its run files (and any in /tmp), its stopped processes. */
function traces(h: TestHost): string[] {
  const out = onHost(
    h,
    'echo rules=$(iptables-save | grep -c lockchaos); { ls -A /var/tmp/lockchaos-0 2>/dev/null; ls /tmp; } | grep lockchaos; for p in $(pgrep -x "etcd|redis-server"); do echo "$p:$(cut -d" " -f3 /proc/$p/stat)"; done',
  );
  return out.split('\n').filter((l) => l !== 'rules=0' && !/^\d+:[SR]$/.test(l) && l !== '');
}

describe.skipIf(skip)('a target: hosts over SSH, one with no channel', () => {
  let hosts: TestHosts;
  let dir: string;
  const inventory = (file: string, data: unknown) => {
    const path = join(dir, file);
    writeFileSync(path, JSON.stringify(data, null, 2));
    return path;
  };
  let etcd: string;
  let redis: string;
  let rented: string;
  const store = () => join(dir, 'store');
  const etcdHosts = () => hosts.hosts.filter((h) => h.name.startsWith('etcd'));

  beforeAll(() => {
    hosts = startHosts([
      ...ETCD.map((name) => ({ name, command: etcdCommand(name, ETCD) })),
      { name: 'redis-1', command: REDIS_COMMAND },
      { name: 'redis-rented', command: REDIS_COMMAND },
    ]);
    dir = mkdtempSync(join(tmpdir(), 'lcx-target-'));
    const ssh = { user: 'root', key: hosts.key, knownHosts: hosts.knownHosts };
    const commands = { start: '/usr/local/bin/start-service', logs: 'tail -n 100 /var/log/service.log' };
    const address = (name: string) => hosts.hosts.find((h) => h.name === name)?.ip;
    etcd = inventory('etcd.yaml', {
      defaults: { ssh, commands },
      nodes: ETCD.map((name) => ({ name, address: address(name) })),
    });
    redis = inventory('redis.yaml', {
      defaults: { ssh, commands },
      nodes: [{ name: 'redis-1', address: address('redis-1') }],
    });
    rented = inventory('rented.yaml', { nodes: [{ name: 'redis-1', address: address('redis-rented') }] });
  });
  afterAll(() => removeHosts(hosts));

  const gcPause = (target: string, backend: string, fencing: 'on' | 'off', more: string[] = []) =>
    runAndRead(store(), [
      '--scenario',
      'gc-pause',
      '--backend',
      backend,
      '--target',
      target,
      '--fencing',
      fencing,
      '--seed',
      '3',
      ...more,
    ]);

  it('gc-pause on the 3-node etcd over SSH: unfenced INVALID, fenced valid, as on the built-in backend', async () => {
    const unfenced = await gcPause(etcd, 'etcd', 'off', ['--stop-on-violation']);
    expect(unfenced.stdout).toMatch(/verdict: INVALID/);
    expect(unfenced.code).toBe(1);
    const fenced = await gcPause(etcd, 'etcd', 'on', ['--time-limit', '12']);
    expect(fenced.stdout).toMatch(/fencing\s+valid/);
    expect(fenced.stdout).toMatch(/verdict: valid/);
    expect(fenced.code).toBe(0);
    for (const h of etcdHosts()) expect(traces(h)).toEqual([]);
  });

  it('gc-pause on the Redis over SSH, and on the Redis with no channel: unfenced INVALID', async () => {
    for (const target of [redis, rented]) {
      const r = await gcPause(target, 'redis', 'off', ['--stop-on-violation']);
      expect(r.stdout).toMatch(/verdict: INVALID/);
      expect(r.code).toBe(1);
      expect(r.left).toEqual([]);
    }
  });

  it('a node pause and a partition through SSH take effect, and are gone after the run', async () => {
    const r = await runAndRead(store(), [
      ...['--backend', 'etcd', '--target', etcd, '--workload', 'lock-set', '--nemesis', 'pause-node,partition'],
      ...['--nemesis-interval', '1', '--time-limit', '8', '--seed', '4'],
    ]);
    expect(r.code).toBe(0);
    const started = (f: string) =>
      r.history.filter((o) => o.f === f && o.type === 'ok').map((o) => o.value as Record<string, unknown>);
    const pauses = started('start-pause-node');
    expect(pauses.length).toBeGreaterThan(0);
    // The host said, after SIGSTOP, that each process of the service was stopped ('T').
    for (const p of pauses) {
      const stopped = p.stopped as Record<string, Record<string, string>>;
      for (const node of p.nodes as string[]) expect(Object.values(stopped[node] ?? { none: '?' })).toEqual(['T']);
    }
    const partitions = started('start-partition');
    expect(partitions.length).toBeGreaterThan(0);
    // Each node given rules read back as many of the run's rules as peers it drops.
    for (const p of partitions) {
      const drops = p.drops as Record<string, string[]>;
      const rules = p.rules as Record<string, number>;
      for (const [node, from] of Object.entries(drops)) if (from.length > 0) expect(rules[node]).toBe(from.length);
    }
    expect(readFileSync(join(r.dir, 'nodes', 'etcd-1.log'), 'utf8')).toMatch(/etcd/);
    for (const h of etcdHosts()) expect(traces(h)).toEqual([]);
  });

  it('the node with no channel refuses a node fault in one line, before anything starts', async () => {
    const r = await lockchaos([
      'run',
      '--backend',
      'redis',
      '--target',
      rented,
      '--nemesis',
      'pause-node',
      '--store',
      store(),
    ]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(
      /node redis-1 has no control channel .*give it ssh: or docker:, or choose a client-side fault/,
    );
  });

  it('--dry-run lists the commands host by host; no run folder names a credential', async () => {
    const r = await lockchaos([
      'run',
      '--backend',
      'etcd',
      '--target',
      etcd,
      '--nemesis',
      'pause-node,kill-node,partition',
      '--dry-run',
    ]);
    expect(r.code).toBe(0);
    for (const h of etcdHosts()) expect(r.stdout).toContain(`${h.name} ${h.ip}:2379 (ssh root@${h.ip}:22)`);
    expect(r.stdout).toMatch(/kill -STOP \$pids/);
    expect(r.stdout).toMatch(/iptables -A INPUT -s \S+ -m comment --comment lockchaos-<run> -j DROP/);
    expect(r.stdout).toContain('/usr/local/bin/start-service');
    // Every file of every run folder: no key path, no key.
    const key = readFileSync(hosts.key, 'utf8').split('\n')[1] as string;
    const files = (d: string): string[] =>
      readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? files(join(d, n)) : [join(d, n)]));
    for (const f of files(store())) {
      const text = readFileSync(f, 'utf8');
      expect(text, f).not.toContain(hosts.key);
      expect(text, f).not.toContain(key);
    }
  });

  /** A run on the etcd hosts, sent `signal` once a host shows a process its pause stopped. */
  async function signalMidPause(nemesis: string, seed: number, signal: 'SIGINT' | 'SIGKILL') {
    const args = ['run', '--backend', 'etcd', '--target', etcd, '--workload', 'lock-set', '--nemesis', nemesis];
    let pid = 0;
    const run = lockchaos(
      [...args, '--nemesis-interval', '1', '--time-limit', '60', '--seed', String(seed), '--store', store()],
      {
        onSpawn: (p) => (pid = p),
        // A runner killed with -9 leaves workers holding its pipes until the next start sweeps them.
        until: signal === 'SIGKILL' ? 'exit' : 'close',
      },
    );
    await untilTraced(etcdHosts());
    process.kill(pid, signal);
    return run;
  }

  it('Ctrl-C while a node pause is in effect (and partitions come and go) heals the hosts', async () => {
    const r = await signalMidPause('pause-node:all,partition', 5, 'SIGINT');
    expect(r.code).toBe(130);
    for (const h of etcdHosts()) expect(traces(h)).toEqual([]);
  });

  it('a runner killed with -9 leaves stopped processes; the next start (cleanup) heals them', async () => {
    await signalMidPause('pause-node:all', 6, 'SIGKILL');
    expect(
      etcdHosts()
        .flatMap(traces)
        .some((t) => /:T$/.test(t)),
    ).toBe(true);
    const cleanup = await lockchaos(['cleanup']);
    expect(cleanup.stdout).toMatch(/[1-9]\d* targets healed/);
    for (const h of etcdHosts()) expect(traces(h)).toEqual([]);
  });

  /** Waits until some host carries a trace of a run (a stopped process, a rule, a marker). */
  async function untilTraced(on: TestHost[]) {
    for (let i = 0; i < 600; i++) {
      if (on.some((h) => traces(h).some((t) => /:T$/.test(t)))) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('no fault took effect on the hosts');
  }
});
