import { describe, expect, it } from 'vitest';
import { cgroupCheck, zookeeperCheck } from './doctor.js';

describe('lockchaos doctor: the optional parts', () => {
  it('the ZooKeeper client: ok when it loads, else a warning that says what is lost and how to get it', () => {
    expect(zookeeperCheck(undefined)).toMatchObject({ name: 'zookeeper', status: 'ok' });
    const missing = zookeeperCheck(
      "needs the optional native package 'zookeeper', which is not installed: npm install zookeeper",
    );
    expect(missing.status).toBe('warn');
    expect(missing.detail).toMatch(/^--backend zookeeper needs .*npm install zookeeper; every other backend works$/);
  });

  it('on this machine (the checkout installs it), the client loads', () => {
    expect(zookeeperCheck().status).toBe('ok');
  });

  it('cgroups: where none can be made, a warning that client programs run in their process group only', () => {
    const fallback = cgroupCheck({ why: 'no cgroup v2 hierarchy is mounted' });
    expect(fallback.status).toBe('warn');
    expect(fallback.detail).toMatch(
      /^no cgroup v2 hierarchy is mounted: client programs run in their process group only/,
    );
    expect(cgroupCheck({ parent: '/sys/fs/cgroup/lockchaos' })).toMatchObject({ status: 'ok' });
  });
});
