import { describe, expect, it } from 'vitest';
import type { Backend } from '../backends/backend.js';
import { BACKENDS } from '../backends/index.js';
import { redisSentinelBackend } from '../backends/redis-sentinel.js';
import { redlockBackend } from '../backends/redlock.js';
import { configFromArgs } from '../cli/run.js';
import { UserError } from '../util/errors.js';
import { DEFAULTS } from './config.js';
import { backendOptionsOf, validateConfig } from './resolve.js';

const parse = (args: string[]) => {
  const p = configFromArgs([...args, '--seed', '1']);
  if (p === 'help') throw new Error('help');
  return validateConfig(p.config);
};

describe('run configuration', () => {
  it('has defaults and a name from its parts', () => {
    const c = parse([]);
    expect(c).toMatchObject({
      backend: DEFAULTS.backend,
      workload: 'lock-set',
      nemesis: 'none',
      fencing: false,
      seed: 1,
    });
    expect(c.name).toBe('redis-lock-set-none-unfenced');
  });

  it('takes a fixed pause/TTL ratio and a backoff jitter', () => {
    expect(parse(['--nemesis', 'client-pause', '--pause-ttl', '1.5', '--backoff-jitter', '0'])).toMatchObject({
      pauseTtl: 1.5,
      backoffJitterMs: 0,
    });
    expect(parse([])).not.toHaveProperty('pauseTtl');
  });

  it.each([
    [['--backend', 'foo'], /unknown backend 'foo': choose one of redis, redlock/],
    [['--workload', 'x'], /unknown workload 'x': choose one of lock-set, mutex/],
    [['--nemesis', 'x'], /unknown nemesis 'x' in --nemesis 'x': choose none or some of client-pause, pause-node/],
    [['--nemesis', 'partition:nonsense'], /bad aim 'nonsense' for partition/],
    [
      ['--nemesis', 'partition:halves'],
      /needs at least 2 nodes \(it cuts nodes off from each other\); redis has 1: use partition:clients/,
    ],
    [['--backend', 'redlock', '--fencing', 'on'], /Redlock has no fencing token/],
    [['--fencing', 'maybe'], /--fencing takes on or off/],
    [['--ttl', 'abc'], /--ttl takes a number/],
    [['--concurrency', '0'], /--concurrency must be a whole number > 0/],
    [['--bogus'], /^unknown option '--bogus' \(see lockchaos run --help\)$/],
    [['--nemesiss', 'x'], /^unknown option '--nemesiss': did you mean --nemesis\? \(see lockchaos run --help\)$/],
    // Bounds: refuse what cannot work, with the limit in the message (issue 10).
    [['--time-limit', '1e9'], /^--time-limit must be at most 86400 s \(a day\), got '1000000000'$/],
    [['--concurrency', '100000'], /^--concurrency must be at most 100 \(each client is a process\)/],
    [['--concurrency', '-1'], /^--concurrency must be a whole number > 0, got '-1'$/],
    [['--time-limit', '-5'], /^--time-limit must be a number > 0, got '-5'$/],
    [['--backend', 'redlock', '--nodes', '1000'], /^--nodes must be at most 15 \(each node is a container\)/],
    [['--backend', 'redlock', '--nodes', '2'], /^--nodes must be at least 3 for redlock/],
    [['--backend', 'redlock', '--nodes', '1'], /^--nodes must be at least 3 for redlock/],
    [['--backend', 'redis', '--nodes', '5'], /^--nodes 5: backend redis runs 1 nodes; leave --nodes out$/],
    [['--nemesis', ''], /^--nemesis is empty: give none, or fault kinds/],
    [
      ['--pause-ttl', '0.5'],
      /^--pause-ttl sets how long client-pause pauses: add client-pause to --nemesis \(got 'none'\)$/,
    ],
    [['--nemesis', 'client-pause', '--pause-ttl', '0'], /^--pause-ttl must be a number > 0, got '0'$/],
    [['--nemesis', 'client-pause', '--pause-ttl', '500'], /^--pause-ttl must be from 0.01 to 100 × TTL/],
    [['--backoff-jitter', '-1'], /^--backoff-jitter must be a number >= 0, got '-1'$/],
    [['--backoff-jitter', 'x'], /^--backoff-jitter takes a number, got 'x'$/],
    [['--nemesis-interval', '1e-6'], /^--nemesis-interval must be from 0.1 to 86400 s/],
    [['--name', '../../x'], /^--name must be a folder name .* got '\.\.\/\.\.\/x'$/],
    [['--name', 'a/b'], /^--name must be a folder name/],
    [['--name', '.hidden'], /^--name must be a folder name/],
  ])('rejects %j with one clear line', (args, message) => {
    expect(() => parse(args)).toThrow(UserError);
    expect(() => parse(args)).toThrow(message);
  });

  it('takes a backend option by the names the backend declares, and refuses others in one line', () => {
    const c = { ttlMs: 1000, backendOptions: 'wait=x' };
    expect(() => backendOptionsOf(c, redisSentinelBackend)).toThrow(/wait takes a whole number >= 0, got 'x'/);
    expect(() => backendOptionsOf({ ...c, backendOptions: 'fsync=1' }, redisSentinelBackend)).toThrow(
      /takes key=value with a key from: wait, follow-failover, min-replicas/,
    );
    // A key given twice: neither taken silently.
    expect(() => backendOptionsOf({ ...c, backendOptions: 'wait=1,wait=2' }, redisSentinelBackend)).toThrow(
      /^--backend-options gives wait twice \(wait=1, wait=2\): give it once$/,
    );
    expect(backendOptionsOf({ ...c, backendOptions: 'wait=1' }, redisSentinelBackend).settings).toEqual({
      wait: '1',
      'follow-failover': 'half',
      'min-replicas': '0',
    });
  });
});

describe('a minimum node count', () => {
  const config = (backend: string, nodes: number) => ({ ...DEFAULTS, name: 't', seed: 1, backend, nodes });
  /** Registers backends for the test, as a loaded module would be. */
  const withBackends = (backends: Record<string, Backend>, test: () => void) => {
    const before = { ...BACKENDS };
    Object.assign(BACKENDS, backends);
    try {
      test();
    } finally {
      for (const name of Object.keys(backends)) delete BACKENDS[name];
      Object.assign(BACKENDS, before);
    }
  };

  it('is what the backend declares (capabilities.minNodes), refused in one line, whatever its name', () => {
    const { minNodes: _, ...others } = redlockBackend.capabilities ?? {};
    const fourOrMore: Backend = {
      ...redlockBackend,
      name: 'my-majority-lock',
      capabilities: { ...others, minNodes: { count: 4, why: (n) => `${n} nodes cannot outvote a partition` } },
    };
    withBackends({ 'my-majority-lock': fourOrMore, redlock: { ...redlockBackend, capabilities: others } }, () => {
      expect(() => validateConfig(config('my-majority-lock', 3))).toThrow(
        /^--nodes must be at least 4 for my-majority-lock \(3 nodes cannot outvote a partition\), got '3'$/,
      );
      expect(validateConfig(config('my-majority-lock', 4)).nodes).toBe(4);
      // Redlock without the declaration: its name alone refuses nothing.
      expect(validateConfig(config('redlock', 2)).nodes).toBe(2);
    });
    expect(() => validateConfig(config('redlock', 2))).toThrow(
      /^--nodes must be at least 3 for redlock \(a majority of 2 tolerates no failed master\), got '2'$/,
    );
  });
});

describe('--backend-options from the command line', () => {
  it('is kept in the configuration and checked against the backend', () => {
    const parsed = configFromArgs(['--backend', 'redis-sentinel', '--backend-options', 'wait=1', '--seed', '1']);
    expect(parsed !== 'help' && parsed.config.backendOptions).toBe('wait=1');
    const bad = configFromArgs(['--backend', 'redis', '--backend-options', 'wait=1', '--seed', '1']);
    expect(() => bad !== 'help' && validateConfig(bad.config)).toThrow(/redis takes key=value with a key from: none/);
  });
});

describe('run folders', () => {
  it('names its folder without : or , (artifact uploaders refuse them)', () => {
    expect(parse(['--backend', 'redlock', '--nemesis', 'pause-node:one,partition:halves']).name).toBe(
      'redlock-lock-set-pause-node_one_partition_halves-unfenced',
    );
  });

  it('--no-latest: no store/latest link (CI artifact stores)', () => {
    const p = configFromArgs(['--no-latest', '--seed', '1']);
    const q = configFromArgs(['--seed', '1']);
    expect(p !== 'help' && p.latest).toBe(false);
    expect(q !== 'help' && q.latest).toBe(true);
  });
});
