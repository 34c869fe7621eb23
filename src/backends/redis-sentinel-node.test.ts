import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { PeerNames } from '../cluster/cluster.js';
import { sentinelGroupSpecs } from './redis-sentinel-node.js';

const peers: PeerNames = { host: (name) => `net-${name}` };
const specs = sentinelGroupSpecs({ replicas: 2, sentinels: 3, minReplicas: 0 });
/** A node's start script (bash -c SCRIPT). */
const script = (name: string) => {
  const command = specs.find((s) => s.name === name)?.command;
  const argv = typeof command === 'function' ? command(peers) : (command ?? []);
  expect(argv.slice(0, 2)).toEqual(['bash', '-c']);
  return argv[2] as string;
};

describe('the Sentinel group starts knowing itself', () => {
  it('gives each Sentinel a fixed id and names the other Sentinels by theirs', () => {
    const ids = ['sentinel-1', 'sentinel-2', 'sentinel-3'].map(
      (name) => /sentinel myid ([0-9a-f]{40})/.exec(script(name))?.[1],
    );
    expect(new Set(ids).size).toBe(3);
    for (const [i, name] of ['sentinel-1', 'sentinel-2', 'sentinel-3'].entries()) {
      const known = [
        ...script(name).matchAll(/known-sentinel lockprimary \$\(resolve net-(sentinel-\d)\) 26379 (\w+)/g),
      ];
      const others = [1, 2, 3].filter((j) => j !== i + 1);
      expect(known.map((m) => m[1])).toEqual(others.map((j) => `sentinel-${j}`));
      expect(known.map((m) => m[2])).toEqual(others.map((j) => ids[j - 1]));
      expect(script(name)).toMatch(/known-replica lockprimary \$\(resolve net-redis-2\) 6379/);
      expect(script(name)).toMatch(/known-replica lockprimary \$\(resolve net-redis-3\) 6379/);
    }
  });

  it('points each replica at the primary by address, and syncs without delay', () => {
    for (const name of ['redis-2', 'redis-3']) {
      expect(script(name)).toContain('primary=$(resolve net-redis-1)');
      expect(script(name)).toContain(`printf 'replicaof %s 6379\\n' "$primary" > /data/replicaof.conf`);
      expect(script(name)).toContain('--include /data/replicaof.conf');
    }
    for (const name of ['redis-1', 'redis-2', 'redis-3'])
      expect(script(name)).toContain('--repl-diskless-sync-delay 0');
    expect(script('redis-1')).not.toContain('replicaof');
  });

  it('at the first start only, each replica waits for the primary to listen, each Sentinel for the replicas in sync', () => {
    for (const name of ['redis-2', 'redis-3']) {
      expect(script(name)).toMatch(
        /if \[ ! -f \/data\/\.started \] && \[ "\$DATA_WIPED" = 0 \]; then\n {2}deadline=.*; until \(exec 3<>\/dev\/tcp\/\$primary\/6379\)/,
      );
      expect(script(name)).toContain('touch /data/.started');
    }
    for (const name of ['sentinel-1', 'sentinel-2', 'sentinel-3']) {
      const first = script(name).split('if [ ! -f /data/sentinel.conf ]; then')[1] ?? '';
      for (const replica of ['redis-2', 'redis-3'])
        expect(first).toContain(
          `redis-cli -h "$(resolve net-${replica})" -p 6379 info replication 2>/dev/null | grep -q master_link_status:up`,
        );
    }
  });

  it('writes start scripts bash can parse', () => {
    for (const spec of specs) execFileSync('bash', ['-n', '-c', script(spec.name)]);
  });
});
