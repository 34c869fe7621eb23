/**
 * A target's inventory as a hostile or a mistaken file has it, against real sshd hosts
 * (target-hosts.ts): an address that is a shell line reaches no shell, even when it gets
 * past the parser; a host that is an ssh option is never one; a wrong port, a changed host
 * key, key and knownHosts beside the inventory, hostKeyChecking off, and what a run leaves
 * in a target's Redis.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHandle } from '../../src/cluster/cluster.js';
import { nodeFaultContext } from '../../src/nemesis/context.js';
import { Partition } from '../../src/nemesis/kinds/partition.js';
import { hostTag } from '../../src/target/commands.js';
import type { SshChannel, TargetNode } from '../../src/target/inventory.js';
import { ledgerDir } from '../../src/target/ledger.js';
import { SshHost } from '../../src/target/ssh.js';
import { SshNode } from '../../src/target/target-node.js';
import { Rng } from '../../src/util/rng.js';
import { lockchaos, requireEngine } from './support.js';
import { onHost, REDIS_COMMAND, removeHosts, startHosts, type TestHosts } from './target-hosts.js';

const skip = await requireEngine();

describe.skipIf(skip)('an inventory against real hosts', () => {
  let hosts: TestHosts;
  let dir: string;
  const host = (name: string) => {
    const h = hosts.hosts.find((x) => x.name === name);
    if (!h) throw new Error(`no host ${name}`);
    return h;
  };
  const write = (file: string, data: unknown) => {
    const path = join(dir, file);
    writeFileSync(path, JSON.stringify(data, null, 2));
    return path;
  };
  /** A folder that is not the inventory's, to run lockchaos from. */
  let elsewhere: string;

  beforeAll(() => {
    hosts = startHosts([
      { name: 'redis-1', command: REDIS_COMMAND },
      { name: 'redis-2', command: REDIS_COMMAND },
    ]);
    dir = mkdtempSync(join(tmpdir(), 'lcx-inventory-'));
    elsewhere = mkdtempSync(join(tmpdir(), 'lcx-cwd-'));
  });
  afterAll(() => removeHosts(hosts));

  const channel = (address: string, more: Partial<SshChannel> = {}): SshChannel => ({
    kind: 'ssh',
    host: address,
    port: 22,
    user: 'root',
    key: hosts.key,
    knownHosts: hosts.knownHosts,
    hostKeyChecking: true,
    sudo: false,
    ...more,
  });

  it('runs nothing of a peer address that is a shell line, even one that got past the parser', async () => {
    const runId = `inj${process.pid}`;
    const [a, b] = [host('redis-1'), host('redis-2')];
    const marks = ['/tmp/lcx-x', '/tmp/lcx-y', '/tmp/lcx-z'];
    const hostile = [
      `${b.ip}$(touch ${marks[0]})`,
      `${a.ip};touch ${marks[1]};true`,
      `${a.ip} -j ACCEPT; touch ${marks[2]}; iptables -A INPUT -s ${a.ip}`,
    ];
    for (const peer of hostile) {
      // The inventory's nodes as objects, not from a file: the parser would refuse these.
      const targets: TargetNode[] = [a, b].map((h) => ({
        name: h.name,
        address: h.ip,
        port: 6379,
        peerAddress: peer,
        control: channel(h.ip),
        commands: {},
      }));
      const nodes = targets.map((t) => new SshNode(t, async () => {}, new SshHost(t.control as SshChannel), runId));
      try {
        const ctx = nodeFaultContext(runId, nodes as NodeHandle[], { nemesisIntervalS: 1, ttlMs: 1000 });
        const partition = new Partition(ctx, 'halves');
        // iptables is handed the whole value as the address, and refuses it.
        await expect(partition.start(new Rng(1))).rejects.toThrow(/iptables/);
        await partition.healAll();
      } finally {
        await Promise.all(nodes.map((n) => n.host.close()));
      }
    }
    // A host given as an ssh option stays a host name ssh cannot reach, and runs no proxy command here.
    const local = join(elsewhere, 'proxy-ran');
    const option = new SshHost(channel(`-oProxyCommand=touch ${local}`));
    expect((await option.run('true')).exitCode).not.toBe(0);
    await option.close();
    expect(existsSync(local)).toBe(false);
    for (const h of [a, b]) {
      expect(onHost(h, `ls ${marks.join(' ')} 2>/dev/null; true`)).toBe('');
      expect(onHost(h, `iptables-save | grep -c -- ${hostTag(runId)}; true`)).toBe('0');
    }
  });

  /** A 2-second Redis run on an inventory, with no fault. */
  const shortRedisRun = (inv: string) =>
    lockchaos(['run', '--backend', 'redis', '--target', inv, '--time-limit', '2', '--store', join(dir, 's')]);

  it('names the node, its address and port and the inventory key of a port nothing answers on, before any readiness wait', async () => {
    const ip = host('redis-1').ip;
    const inv = write('wrong-port.yaml', {
      defaults: { ssh: { user: 'root', key: hosts.key, knownHosts: hosts.knownHosts } },
      nodes: [{ name: 'redis-1', address: ip, port: 6390 }],
    });
    const r = await shortRedisRun(inv);
    expect(r.code).toBe(3);
    const last = r.stderr.trim().split('\n').at(-1);
    expect(last).toBe(
      `lockchaos run: --target ${inv}: node redis-1 at ${ip}:6390 does not answer (ECONNREFUSED): check nodes[0].port and the node's address, and that the service runs`,
    );
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it('names the node and the key when its port answers but is not the service (readiness gives up at once)', async () => {
    const ip = host('redis-1').ip;
    const inv = write('ssh-port.yaml', { defaults: { port: 22 }, nodes: [{ name: 'redis-1', address: ip }] });
    const r = await shortRedisRun(inv);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(
        `^lockchaos run: --target ${inv}: node redis-1 at ${ip.replace(/\./g, '\\.')}:22 takes connections but the service is not ready \\(.*\\): check that defaults\\.port is the service's client port$`,
      ),
    );
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  });

  it("says ssh's reason for a changed host key, with the host, not a row of @", async () => {
    const ip = host('redis-1').ip;
    const other = join(dir, 'other_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    const wrong = join(dir, 'wrong_known_hosts');
    writeFileSync(wrong, `${ip} ${readFileSync(`${other}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
    const inv = write('changed-key.yaml', {
      defaults: { ssh: { user: 'root', key: hosts.key, knownHosts: wrong } },
      nodes: [{ name: 'redis-1', address: ip }],
    });
    const entries = () => (existsSync(ledgerDir()) ? readdirSync(ledgerDir()) : []);
    const before = entries();
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--target', inv, '--nemesis', 'pause-node'],
      ...['--time-limit', '2', '--store', join(dir, 's')],
    ]);
    expect(r.code).toBe(3);
    // The host was never written on: no ledger entry is kept for a heal that cannot reach it.
    expect(entries()).toEqual(before);
    const last = r.stderr.trim().split('\n').at(-1) as string;
    expect(last).toContain(
      `ssh failed: REMOTE HOST IDENTIFICATION HAS CHANGED for ${ip}:22, Host key verification failed`,
    );
    expect(last).toContain(wrong);
    expect(r.stderr).not.toContain('@@@');
  });

  it('reads key and knownHosts beside the inventory from another folder, and leaves only an expiring token key', async () => {
    const beside = mkdtempSync(join(tmpdir(), 'lcx-beside-'));
    copyFileSync(hosts.key, join(beside, 'id_ed25519'));
    copyFileSync(hosts.knownHosts, join(beside, 'known_hosts'));
    const h = host('redis-2');
    // Inventories beside their key, naming the files relative to themselves.
    const besideInventory = (file: string, knownHosts: string) => {
      const path = join(beside, file);
      const ssh = { user: 'root', key: 'id_ed25519', knownHosts };
      writeFileSync(path, JSON.stringify({ defaults: { ssh }, nodes: [{ name: 'redis-1', address: h.ip }] }));
      return path;
    };
    const inv = besideInventory('inv.yaml', './known_hosts');
    const missing = besideInventory('missing.yaml', 'nope');
    const dry = await lockchaos(
      ['run', '--backend', 'redis', '--target', missing, '--nemesis', 'pause-node', '--dry-run'],
      { cwd: elsewhere },
    );
    expect(dry.code).toBe(3);
    expect(dry.stderr.trim()).toBe(
      `lockchaos run: --target ${missing}: node redis-1: ssh.knownHosts ${join(beside, 'nope')} does not exist: give the file's path (a relative one is read beside the inventory, ~/ in the home folder)`,
    );
    const r = await lockchaos(
      [
        ...['run', '--backend', 'redis', '--target', inv, '--nemesis', 'pause-node', '--nemesis-interval', '1'],
        ...['--time-limit', '4', '--seed', '2', '--store', join(dir, 's')],
      ],
      { cwd: elsewhere },
    );
    expect(r.stderr).toContain('connecting to the redis target (1 node) and starting the data store');
    expect(r.stderr).not.toMatch(/starting redis cluster/);
    expect(r.code).toBe(0);
    // The lock key is gone or going (its TTL); its token counter stays, but with an expiry (a day at most).
    expect(onHost(h, 'redis-cli PTTL lockchaos:lock')).not.toBe('-1');
    const ttl = Number(onHost(h, 'redis-cli PTTL lockchaos:lock:token'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(24 * 60 * 60 * 1000);
  });

  it("with hostKeyChecking off accepts a new host's key without writing the inventory's known_hosts", async () => {
    const h = host('redis-1');
    const empty = join(dir, 'empty_known_hosts');
    writeFileSync(empty, '');
    const inv = write('accept-new.yaml', {
      defaults: { ssh: { user: 'root', key: hosts.key, knownHosts: empty, hostKeyChecking: false } },
      nodes: [{ name: 'redis-1', address: h.ip }],
    });
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--target', inv, '--nemesis', 'pause-node', '--nemesis-interval', '1'],
      ...['--time-limit', '3', '--seed', '3', '--store', join(dir, 's')],
    ]);
    expect(r.code).toBe(0);
    expect(readFileSync(empty, 'utf8')).toBe('');
  });

  it('notes an even-sized etcd inventory in the dry run', async () => {
    const inv = write('two-etcd.yaml', {
      nodes: [
        { name: 'e1', address: '10.1.1.1' },
        { name: 'e2', address: '10.1.1.2' },
      ],
    });
    const r = await lockchaos(['run', '--backend', 'etcd', '--target', inv, '--nemesis', 'latency', '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `note: --target ${inv}: 2 etcd nodes need 2 for a majority: it survives 0 node failures`,
    );
  });
});
