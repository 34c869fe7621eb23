import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { hostScripts, hostTag, processStates } from './commands.js';
import { checkChannelFiles, parseInventory } from './inventory.js';
import { inventoryJsonSchema } from './inventory-json-schema.js';

const etcd = { backend: 'etcd', port: 2379 };
const parsed = (data: unknown) => parseInventory(data, 't.yaml', etcd);
const refusal = (data: unknown) => {
  try {
    parsed(data);
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    return (err as Error).message;
  }
  throw new Error('accepted');
};

describe('an inventory', () => {
  it('gives each node its channel, the defaults merged and the backend defaults filled', () => {
    const inv = parsed({
      defaults: { ssh: { user: 'ops', key: '/k' }, commands: { start: 'systemctl start etcd' } },
      nodes: [
        { name: 'a', address: '10.0.0.1' },
        { name: 'b', address: '10.0.0.2', port: 12379, ssh: { user: 'root', sudo: true } },
        { name: 'c', address: '10.0.0.3', docker: { container: 'stack-etcd-3' } },
        { name: 'd', address: '10.0.0.4', ssh: null },
      ],
    });
    const [a, b, c, d] = inv.nodes;
    expect(a?.control).toEqual({
      kind: 'ssh',
      host: '10.0.0.1',
      port: 22,
      user: 'ops',
      key: '/k',
      knownHosts: undefined,
      hostKeyChecking: true,
      sudo: false,
    });
    expect(a?.port).toBe(2379);
    expect(a?.commands).toEqual({
      process: 'pgrep -x etcd',
      start: 'systemctl start etcd',
      path: undefined,
      logs: undefined,
    });
    expect(b?.control).toMatchObject({ user: 'root', sudo: true, key: '/k' });
    expect(b?.port).toBe(12379);
    expect(c?.control).toEqual({ kind: 'docker', container: 'stack-etcd-3' });
    expect(d?.control).toEqual({ kind: 'none' });
    expect(a?.peerAddress).toBe('10.0.0.1');
  });

  it('refuses, in one line naming the place and the fix, what it does not know', () => {
    expect(refusal({ nodes: [{ name: 'a', adress: 'x' }] })).toMatch(
      /nodes\[0\]\.adress is not a key here: did you mean address\?/,
    );
    expect(refusal({ nodes: [] })).toMatch(/^--target t\.yaml: nodes must be a list of one node or more$/);
    expect(refusal({ nodes: [{ name: 'a', address: 'x', ssh: {} }] })).toMatch(/nodes\[0\]\.ssh\.user is missing/);
    expect(
      refusal({
        nodes: [
          { name: 'a', address: 'x' },
          { name: 'a', address: 'y' },
        ],
      }),
    ).toMatch(/names 'a' a second time/);
    expect(refusal({ nodes: [{ name: 'a', address: 'x', ssh: { user: 'u' }, docker: { container: 'c' } }] })).toMatch(
      /both ssh and docker/,
    );
    expect(refusal({ nodes: [{ name: 'a', address: 'x', port: 70000 }] })).toMatch(/nodes\[0\]\.port must be a port/);
    expect(refusal({ nodes: [{ name: 'store', address: 'x' }] })).toMatch(/data store/);
    expect(refusal({ nodes: [{ name: 'a', address: 'x\ny' }] })).toMatch(/must be one line/);
    for (const bad of [[], 'nodes', null, 3]) expect(refusal(bad)).toMatch(/the file must be a mapping/);
  });

  it('refuses a value that would reach a command line as anything but what it names, in one line with its place', () => {
    const node = (more: Record<string, unknown>) => ({
      nodes: [
        { name: 'a', address: '10.0.0.1' },
        { name: 'b', ...more },
      ],
    });
    const hostile = [
      '10.9.9.9$(touch /tmp/x)',
      '10.9.9.8;touch /tmp/y;true',
      '`id`',
      '10.0.0.1 -j ACCEPT',
      '-oProxyCommand=touch /tmp/z',
      '10.0.0.1|sh',
      "a'b",
      'fe80::1%eth0',
    ];
    for (const bad of hostile) {
      expect(refusal(node({ address: '10.0.0.2', peerAddress: bad }))).toBe(
        `--target t.yaml: nodes[1].peerAddress must be a host name or an IP address (got ${JSON.stringify(bad)})`,
      );
      expect(refusal(node({ address: bad }))).toMatch(
        /^--target t\.yaml: nodes\[1\]\.address must be a host name or an IP address \(got /,
      );
      expect(refusal(node({ address: '10.0.0.2', ssh: { user: 'root', host: bad } }))).toMatch(
        /nodes\[1\]\.ssh\.host must be a host name or an IP address/,
      );
      expect(refusal({ defaults: { ssh: { user: bad } }, nodes: [{ name: 'a', address: 'h' }] })).toMatch(
        /^--target t\.yaml: defaults\.ssh\.user must be a user name .*\(got /,
      );
      expect(refusal(node({ address: 'h', docker: { container: bad } }))).toMatch(
        /nodes\[1\]\.docker\.container must be a container name or id/,
      );
      expect(refusal(node({ address: 'h', commands: { path: bad } }))).toMatch(
        /nodes\[1\]\.commands\.path must be folders/,
      );
    }
    for (const bad of ['-oProxyCommand=x', 'my key', 'k%h', 'k"x']) {
      expect(refusal(node({ address: 'h', ssh: { user: 'root', key: bad } }))).toMatch(
        /nodes\[1\]\.ssh\.key must be a file path without spaces/,
      );
      expect(refusal(node({ address: 'h', ssh: { user: 'root', knownHosts: bad } }))).toMatch(
        /nodes\[1\]\.ssh\.knownHosts must be a file path/,
      );
    }
    // A long hostile value is cut in the line, which stays one line.
    const long = refusal(node({ address: `${'a'.repeat(300)};reboot` }));
    expect(long.length).toBeLessThan(200);
    expect(long.split('\n')).toHaveLength(1);
  });

  it('takes what a team writes: names, IPv4, IPv6, Compose names, users, folders', () => {
    const inv = parsed({
      defaults: { ssh: { user: 'deploy_user.1' }, commands: { path: '/usr/sbin:/sbin' } },
      nodes: [
        { name: 'a', address: 'etcd-1.staging.example.com', peerAddress: '10.0.0.1' },
        { name: 'b', address: '2001:db8::2', ssh: { user: 'root', host: 'bastion-hop' } },
        { name: 'c', address: 'myapp_etcd_3', docker: { container: 'myapp_etcd_3' } },
        { name: 'd', address: 'ETCD4.' },
      ],
    });
    expect(inv.nodes.map((n) => n.peerAddress)).toEqual(['10.0.0.1', '2001:db8::2', 'myapp_etcd_3', 'ETCD4.']);
  });

  it('reads key and knownHosts beside the inventory file (and ~/ in the home folder), not in the current folder', () => {
    const inv = parseInventory(
      {
        defaults: { ssh: { user: 'root', key: 'keys/id', knownHosts: './known_hosts' } },
        nodes: [
          { name: 'a', address: 'h' },
          { name: 'b', address: 'h', ssh: { user: 'root', key: '~/.ssh/id', knownHosts: '/etc/kh' } },
        ],
      },
      '/srv/inv/staging.yaml',
      etcd,
    );
    expect(inv.nodes[0]?.control).toMatchObject({ key: '/srv/inv/keys/id', knownHosts: '/srv/inv/known_hosts' });
    expect(inv.nodes[1]?.control).toMatchObject({ key: join(homedir(), '.ssh/id'), knownHosts: '/etc/kh' });
  });

  it('says which key gave a node its port', () => {
    const inv = parsed({
      defaults: { port: 1 },
      nodes: [
        { name: 'a', address: 'h', port: 2 },
        { name: 'b', address: 'h' },
      ],
    });
    expect(inv.nodes.map((n) => n.portFrom)).toEqual(['nodes[0].port', 'defaults.port']);
    expect(parsed({ nodes: [{ name: 'a', address: 'h' }] }).nodes[0]?.portFrom).toBe(
      "nodes[0].port (not set: etcd's 2379)",
    );
  });

  it('refuses, in one line naming the node and the file, a key or knownHosts that is not there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lcx-inv-'));
    writeFileSync(join(dir, 'known_hosts'), '');
    const file = join(dir, 'inv.yaml');
    const inv = (ssh: Record<string, unknown>) =>
      parseInventory({ nodes: [{ name: 'a', address: 'h', ssh: { user: 'root', ...ssh } }] }, file, etcd);
    expect(() => checkChannelFiles(inv({ knownHosts: 'known_hosts' }))).not.toThrow();
    const missing = () => checkChannelFiles(inv({ knownHosts: 'known_hosts', key: 'id_missing' }));
    expect(missing).toThrow(UserError);
    expect(missing).toThrow(
      `--target ${file}: node a: ssh.key ${join(dir, 'id_missing')} does not exist: give the file's path (a relative one is read beside the inventory, ~/ in the home folder)`,
    );
    expect(() => checkChannelFiles(inv({ knownHosts: '.' }))).toThrow(/ssh\.knownHosts .* is not a file/);
  });

  it('has the JSON Schema shipped in examples/ (regenerate: see inventory-json-schema.ts)', () => {
    const shipped = JSON.parse(readFileSync(join(packageRoot, 'examples/target.schema.json'), 'utf8'));
    expect(shipped).toEqual(inventoryJsonSchema());
  });
});

describe("a host's scripts", () => {
  const s = hostScripts('ab12', { process: 'pgrep -x etcd', start: 'systemctl start etcd' });
  it('tag every trace with the run, and record what they stop before stopping it', () => {
    expect(hostTag('ab12')).toBe('lockchaos-ab12');
    expect(s.pause.indexOf('>> "$lc_stopped_file"')).toBeLessThan(s.pause.indexOf('kill -STOP'));
    expect(s.kill.indexOf(': >> "$lc_killed_file"')).toBeLessThan(s.kill.indexOf('kill -KILL'));
    expect(s.heal).toContain('lc_tag=lockchaos-ab12');
    expect(s.heal).toContain('grep -v -- "$lc_tag"');
    expect(s.heal).toContain("lc_start='systemctl start etcd'");
  });
  it.runIf(process.platform === 'linux')('pause a busy process and read it back stopped (T), then resume it', () => {
    // A process spinning on the other CPU: its stop arrives when the signal reaches it.
    const busy = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try {
      const own = hostScripts(`t${process.pid}`, { process: `echo ${busy.pid}` });
      const paused = processStates(execFileSync('sh', ['-c', own.pause], { encoding: 'utf8' }));
      expect(paused).toEqual({ [String(busy.pid)]: 'T' });
      execFileSync('sh', ['-c', own.resume]);
      const resumed = processStates(execFileSync('sh', ['-c', own.probe], { encoding: 'utf8' }));
      expect(resumed[String(busy.pid)]).not.toBe('T');
    } finally {
      busy.kill('SIGKILL');
    }
  });
  it('read back process states', () => {
    expect(processStates('12:T 13:S \n')).toEqual({ '12': 'T', '13': 'S' });
    expect(processStates('')).toEqual({});
  });
});
