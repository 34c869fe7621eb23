import { describe, expect, it } from 'vitest';
import { UserError } from '../cli/errors.js';
import { configFromArgs } from '../cli/run.js';
import { DEFAULTS, validateConfig } from './config.js';

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

  it.each([
    [['--backend', 'foo'], /unknown backend 'foo': choose one of redis, redlock/],
    [['--workload', 'x'], /unknown workload 'x': choose one of lock-set, mutex/],
    [['--nemesis', 'x'], /unknown nemesis 'x' in --nemesis 'x': choose none or some of client-pause, pause-node/],
    [['--nemesis', 'partition:nonsense'], /bad target 'nonsense' for partition/],
    [['--nemesis', 'partition:halves'], /needs at least 2 nodes; redis has 1: use partition:clients/],
    [['--backend', 'redlock', '--fencing', 'on'], /Redlock has no fencing token/],
    [['--fencing', 'maybe'], /--fencing takes on or off/],
    [['--ttl', 'abc'], /--ttl takes a number/],
    [['--concurrency', '0'], /--concurrency must be a whole number > 0/],
    [['--bogus'], /Unknown option '--bogus'.*lockchaos run --help/],
  ])('rejects %j with one clear line', (args, message) => {
    expect(() => parse(args)).toThrow(UserError);
    expect(() => parse(args)).toThrow(message);
  });
});
