import { describe, expect, it } from 'vitest';
import { WorkloadSlots } from './workload-slots.js';

describe('WorkloadSlots', () => {
  it('grants up to its size at once, the rest in the order they asked', async () => {
    const slots = new WorkloadSlots(2);
    const order: string[] = [];
    const a = await slots.take();
    const b = await slots.take();
    const granted = (name: string) => (give: () => void) => {
      order.push(name);
      return give;
    };
    const c = slots.take().then(granted('c'));
    const d = slots.take().then(granted('d'));
    expect(slots.taken).toBe(2);
    a();
    (await c)();
    b();
    (await d)();
    expect(order).toEqual(['c', 'd']);
    expect(slots.taken).toBe(0);
  });

  it('gives a slot back once, however often its giver is called', async () => {
    const slots = new WorkloadSlots(1);
    const give = await slots.take();
    give();
    give();
    expect(slots.taken).toBe(0);
    await slots.take();
    expect(slots.taken).toBe(1);
  });

  it('drops a waiter whose signal is aborted, and serves the next', async () => {
    const slots = new WorkloadSlots(1);
    const give = await slots.take();
    const abort = new AbortController();
    const dropped = slots.take(abort.signal);
    const next = slots.take();
    abort.abort('Ctrl-C');
    await expect(dropped).rejects.toBe('Ctrl-C');
    give();
    (await next)();
    expect(slots.taken).toBe(0);
  });
});
