import { describe, expect, it } from 'vitest';
import type { NodeHandle } from '../cluster/cluster.js';
import { bridgeAtItsMoment, type HeldGrant } from './bridge.js';
import { type NodeFaultContext, nodeFaultContext } from './context.js';

const node = (name: string) => ({ name }) as NodeHandle;

describe("the bridge's moment", () => {
  const ctx = (): NodeFaultContext => ({
    ...nodeFaultContext('r', [node('m1'), node('m2'), node('m3')], { ttlMs: 500, nemesisIntervalS: 1 }),
    split: { bridge: 'm2' },
  });
  // A grant held for 2 s already; a new one granted 60 ms from now.
  function grants() {
    const t0 = Date.now();
    let current: HeldGrant = { client: 0, stillHeld: () => true, ageMs: () => 2000 + Date.now() - t0 };
    setTimeout(() => {
      const at = Date.now();
      current = { client: 1, stillHeld: () => true, ageMs: () => Date.now() - at };
    }, 60);
    return () => current;
  }

  it('takes the grant held now, however old, for a jump', async () => {
    const c = ctx();
    const b = await bridgeAtItsMoment(c, grants());
    expect(b.nodes.map((n) => n.name)).toEqual(['m2']);
    expect(b).toMatchObject({ bareMajorityHeld: true });
    expect(b.grantAgeMs).toBeUndefined();
  });

  it('waits for a fresh grant for a drift, which must begin as the key is set', async () => {
    const c = ctx();
    const b = await bridgeAtItsMoment(c, grants(), 50);
    expect(b.grantAgeMs).toBeLessThanOrEqual(50);
    expect(c.split?.outlast).toBeTypeOf('function');
  });

  it('takes what is held once no fresh grant comes in time', async () => {
    const c = ctx();
    const stale: HeldGrant = { client: 0, stillHeld: () => true, ageMs: () => 9000 };
    const b = await bridgeAtItsMoment({ ...c, timing: { ...c.timing, ttlMs: 10 } }, () => stale, 50);
    expect(b).toMatchObject({ bareMajorityHeld: true, grantAgeMs: 9000 });
  });
});
