import { describe, expect, it, vi } from 'vitest';
import { userErrorOf } from '../../test/unit/user-error.js';
import { BACKENDS } from '../backends/index.js';
import { resolveFaults } from '../nemesis/index.js';
import { parseInventory } from '../target/inventory.js';
import { resolveTarget, targetNotes } from './target.js';

const redis = BACKENDS.redis;
const etcd = BACKENDS.etcd;
const inv = (nodes: unknown[], backend = 'etcd') => parseInventory({ nodes }, 't.yaml', { backend, port: 1 });
const ssh = { user: 'root' };
const specs = (b: typeof etcd) => b.nodeSpecs({});

const refusal = userErrorOf;

describe('a target resolved against the run', () => {
  const three = (extra: object) =>
    inv(['e1', 'e2', 'e3'].map((name, i) => ({ name, address: `10.0.0.${i}`, ...extra })));

  it('takes client-side faults on a node with no channel, and refuses node faults there', () => {
    const rented = inv([{ name: 'r', address: 'x' }], 'redis');
    const ok = resolveTarget(rented, specs(redis), resolveFaults('client-pause,latency,partition:clients', redis, 1), {
      backend: 'redis',
      target: 't.yaml',
    });
    expect(ok.needs.size).toBe(0);
    expect(
      refusal(() =>
        resolveTarget(rented, specs(redis), resolveFaults('pause-node', redis, 1), {
          backend: 'redis',
          target: 't.yaml',
        }),
      ),
    ).toMatch(/^--nemesis pause-node:one on --target t\.yaml: node r has no control channel .*give it ssh: or docker:/);
  });

  it('asks a host for a start command before kill-node, and refuses --lose-data', () => {
    const faults = resolveFaults('kill-node', etcd, 3);
    expect(
      refusal(() => resolveTarget(three({ ssh }), specs(etcd), faults, { backend: 'etcd', target: 't.yaml' })),
    ).toMatch(/node e1 has no commands\.start/);
    const started = three({ ssh, commands: { start: 'systemctl start etcd' } });
    expect(
      [...resolveTarget(started, specs(etcd), faults, { backend: 'etcd', target: 't.yaml' }).needs].sort(),
    ).toEqual(['process', 'restart']);
    expect(
      refusal(() => resolveTarget(started, specs(etcd), faults, { backend: 'etcd', target: 't.yaml', loseData: true })),
    ).toMatch(/--lose-data on --target/);
  });

  it('needs the network for a partition between nodes, not for one of the clients', () => {
    const faults = resolveFaults('partition:halves', etcd, 3);
    expect([
      ...resolveTarget(three({ ssh }), specs(etcd), faults, { backend: 'etcd', target: 't.yaml' }).needs,
    ]).toEqual(['network']);
    expect(refusal(() => resolveTarget(three({}), specs(etcd), faults, { backend: 'etcd', target: 't.yaml' }))).toMatch(
      /no control channel/,
    );
  });

  it('takes node-clock on a host over ssh (its own checks come at the start), never on a node with no channel', () => {
    const faults = resolveFaults('node-clock', etcd, 3, true);
    expect([
      ...resolveTarget(three({ ssh }), specs(etcd), faults, { backend: 'etcd', target: 't.yaml' }).needs,
    ]).toEqual(['process', 'clock']);
    expect(refusal(() => resolveTarget(three({}), specs(etcd), faults, { backend: 'etcd', target: 't.yaml' }))).toMatch(
      /^--nemesis node-clock:one on --target t\.yaml: node e1 has no control channel/,
    );
    const hosts = three({ ssh, commands: { process: undefined } });
    for (const n of hosts.nodes) n.commands.process = undefined;
    expect(refusal(() => resolveTarget(hosts, specs(etcd), faults, { backend: 'etcd', target: 't.yaml' }))).toMatch(
      /node e1 has no commands\.process/,
    );
  });

  it('refuses node-clock on an existing container when this runner cannot warp it from here, naming why and the fix', () => {
    const faults = resolveFaults('node-clock', redis, 1, true);
    const container = inv([{ name: 'r', address: '10.0.0.9', docker: { container: 'myapp-redis-1' } }], 'redis');
    const getuid = vi.spyOn(process, 'getuid').mockReturnValue(1000);
    try {
      expect(
        refusal(() => resolveTarget(container, specs(redis), faults, { backend: 'redis', target: 't.yaml' })),
      ).toMatch(
        /^--nemesis node-clock:one on --target t\.yaml: node r is container myapp-redis-1 of this engine, .*needs root.*: run lockchaos as root on the engine's host/,
      );
    } finally {
      getuid.mockRestore();
    }
  });

  it('refuses an inventory of another size than the backend runs', () => {
    expect(refusal(() => resolveTarget(three({}), specs(redis), [], { backend: 'redis', target: 't.yaml' }))).toMatch(
      /--target t\.yaml names 3 nodes; backend redis runs 1: list 1 in the inventory/,
    );
  });
});

describe('notes on a target', () => {
  const sized = (n: number) => inv(Array.from({ length: n }, (_, i) => ({ name: `e${i}`, address: `10.0.0.${i}` })));
  it('say that an even-sized etcd survives no more node failures than one node fewer', () => {
    expect(targetNotes('etcd', sized(2))).toEqual([
      'note: --target t.yaml: 2 etcd nodes need 2 for a majority: it survives 0 node failures, no more than 1 would (list an odd number of nodes unless that is what is tested)',
    ]);
    expect(targetNotes('zookeeper', sized(4))[0]).toMatch(
      /need 3 for a majority: it survives 1 node failure, no more than 3 would/,
    );
    expect(targetNotes('etcd', sized(3))).toEqual([]);
    expect(targetNotes('redlock', sized(4))).toEqual([]);
  });
});
