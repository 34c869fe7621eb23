import { describe, expect, it } from 'vitest';
import { zookeeperCheck } from './doctor.js';

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
});
