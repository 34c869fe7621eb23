/**
 * The clients as faults see them, on a pool of fake workers (test/unit/fake-workers.ts): a
 * client caught at a code point, stopped until resumed, and none caught when none reaches it.
 */
import { describe, expect, it } from 'vitest';
import { fakePool as pool, stopped, until } from '../../test/unit/fake-workers.js';

describe('FaultClients', () => {
  it('catches the first client at a code point, stopped until resumed with its clock step', async () => {
    const { pool: p, ops } = pool(['never-pauses', 'ok']);
    await p.ready(5000);
    const caught = await p.clients.catchAtPoint('after-votes', 5000, -700);
    expect(caught?.client).toBe(1);
    const worker = p.clients.pid(1) as number;
    // SIGSTOP is sent when the catch resolves; the kernel stops the process soon after.
    await until(() => stopped(worker));
    caught?.resume();
    await until(() => ops.some((op) => op.f === 'went-on'));
    expect(ops.find((op) => op.f === 'went-on')?.value).toEqual({ clockStepMs: -700 });
    await p.stop(300);
    expect(p.lost).toEqual([]);
  });

  it('catches no one when no client reaches the point in time', async () => {
    const { pool: p } = pool(['never-pauses']);
    await p.ready(5000);
    expect(await p.clients.catchAtPoint('after-votes', 200)).toBeUndefined();
    await p.stop(300);
  });
});
