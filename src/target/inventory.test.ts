import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { hostScripts, hostTag, processStates } from './commands.js';
import { parseInventory } from './inventory.js';
import { inventoryJsonSchema } from './json-schema.js';

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

  it('has the JSON Schema shipped in examples/ (regenerate: see json-schema.ts)', () => {
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
