/**
 * The search's buffer pool: a buffer handed back comes out again for the next array of its
 * size class, filled as asked (the search relies on zeroed arrays), with exactly the asked
 * length, and once only however often it is given back.
 */
import { describe, expect, it } from 'vitest';
import type { Op } from '../../src/history/op.js';
import { buffers } from './buffers.js';
import { checkLinearizable } from './check-linearizable.js';

describe('buffers', () => {
  it('hands a given-back buffer out again, filled as asked and of the asked length', () => {
    const a = buffers.int32(1000);
    a.fill(7);
    buffers.give(a);
    const b = buffers.int32(900, -1);
    expect(b.buffer).toBe(a.buffer);
    expect(b.length).toBe(900);
    expect(b.every((x) => x === -1)).toBe(true);
    buffers.give(b);
    const c = buffers.uint8(4000);
    expect(c.buffer).toBe(a.buffer);
    expect(c.every((x) => x === 0)).toBe(true);
    buffers.give(c);
    const d = buffers.float64(500);
    expect(d.buffer).toBe(a.buffer);
    expect(d.every((x) => x === 0)).toBe(true);
  });

  it('keeps a buffer once however often it is given back', () => {
    const a = buffers.int32(300);
    buffers.give(a, a);
    const b = buffers.int32(300);
    const c = buffers.int32(300);
    expect(b.buffer).toBe(a.buffer);
    expect(c.buffer).not.toBe(a.buffer);
  });

  it('a new buffer is filled as asked too (zeros without filling)', () => {
    // Sizes no other test hands back, so that these buffers are new.
    expect(buffers.int32(1 << 20, -1).every((x) => x === -1)).toBe(true);
    expect(buffers.int32(1 << 19).every((x) => x === 0)).toBe(true);
    expect(buffers.float64(1 << 19).every((x) => x === 0)).toBe(true);
  });

  it('reserves the sizes a large search grows to, once, and hands them out', () => {
    buffers.reserve();
    const kept = buffers.keptBytes;
    expect(kept).toBeGreaterThanOrEqual(200 * 2 ** 20);
    buffers.reserve();
    expect(buffers.keptBytes).toBe(kept);
    const big = buffers.int32(16 * 2 ** 20); // 64 MiB: one of the reserved
    expect(buffers.keptBytes).toBe(kept - 64 * 2 ** 20);
    expect(big.every((x) => x === 0)).toBe(true);
    buffers.give(big);
    expect(buffers.keptBytes).toBe(kept);
  });

  it('holds no more after many searches than after one: every array a search gives back came from it', () => {
    // Arrays made outside the pool and given back made it grow by two a search, and each
    // give scanned its size's list: a check of a few dozen operations twice as slow.
    const history: Op[] = [
      { index: 0, time: 0, type: 'invoke', f: 'write', process: 0, value: 1 },
      { index: 1, time: 1, type: 'invoke', f: 'read', process: 1 },
      { index: 2, time: 2, type: 'ok', f: 'write', process: 0, value: 1 },
      { index: 3, time: 3, type: 'ok', f: 'read', process: 1, value: 1 },
    ];
    checkLinearizable(history, 'register');
    const kept = buffers.keptBytes;
    for (let i = 0; i < 50; i++) checkLinearizable(history, 'register');
    expect(buffers.keptBytes).toBe(kept);
  });
});
