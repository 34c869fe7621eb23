import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../backends/backend.js';
import { BACKENDS } from '../backends/index.js';
import { packageRoot } from '../util/paths.js';
import { resolveFaults } from './index.js';

/** A backend that declares nothing beyond acquire and release. */
const bare: Backend = {
  name: 'bare',
  description: 'declares nothing',
  fencing: { supported: true },
  nodeSpecs: () => [],
  client: async () => {
    throw new Error('not used');
  },
};

describe('fault kinds ask the backend what it declares', () => {
  it.each([
    ['clock', /clock .*bare does not declare/],
    ['clock:one:strobe', /clock .*bare does not declare/],
    ['client-pause:in-acquire', /inAcquirePausePoint/],
    ['client-clock', /inAcquirePausePoint/],
    ['pause-node:leader', /leader \(which node leads now\)/],
    ['partition:isolate-leader', /leader/],
  ])('refuses %s in one line naming the capability', (spec, why) => {
    expect(() => resolveFaults(spec, bare, 3)).toThrow(why);
  });

  it('takes what needs nothing of the backend, on any backend', () => {
    for (const spec of ['pause-node', 'kill-node', 'partition:isolate-one', 'loss', 'client-pause', 'latency']) {
      expect(resolveFaults(spec, bare, 3)).toHaveLength(1);
    }
  });

  it('takes a clock fault once the backend declares how a clock moves', () => {
    const withClock: Backend = { ...bare, capabilities: { clock: { how: 'test', shift: async () => [0, 0] } } };
    expect(resolveFaults('clock:one:backward', withClock, 1)).toHaveLength(1);
    expect(() => resolveFaults('clock:bridge', withClock, 5)).toThrow(/quorum/);
  });

  it('the built-in backends declare what their stories use', () => {
    expect(() => resolveFaults('clock,client-clock', BACKENDS.redlock as Backend, 5)).not.toThrow();
    expect(() => resolveFaults('clock', BACKENDS.etcd as Backend, 3)).toThrow(/etcd does not declare/);
    expect(() => resolveFaults('partition:isolate-leader', BACKENDS['redis-sentinel'] as Backend, 6)).not.toThrow();
    expect(() => resolveFaults('clock', BACKENDS.postgres as Backend, 1)).toThrow(/postgres does not declare/);
  });

  it('no nemesis source names a backend', () => {
    const dir = join(packageRoot, 'src/nemesis');
    const names = Object.keys(BACKENDS);
    const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' });
    for (const file of sources.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const name of names) expect(text, `${file} names ${name}`).not.toMatch(new RegExp(`['"\`]${name}['"\`]`));
    }
  });
});
