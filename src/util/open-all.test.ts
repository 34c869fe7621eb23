import { describe, expect, it, vi } from 'vitest';
import { openAll } from './open-all.js';

/** An open of connection `name`, answered after ms, or failing then when `fails`. */
const opening =
  (name: string, ms: number, fails = false) =>
  () =>
    new Promise<string>((resolve, reject) =>
      setTimeout(() => (fails ? reject(new Error(`${name}: connect ECONNREFUSED`)) : resolve(name)), ms),
    );

describe('openAll', () => {
  it('answers every connection, in the order of the opens, and closes none', async () => {
    const close = vi.fn();
    await expect(openAll([opening('a', 20), opening('b', 0), opening('c', 10)], close)).resolves.toEqual([
      'a',
      'b',
      'c',
    ]);
    expect(close).not.toHaveBeenCalled();
  });

  it("when one fails, closes those that opened (one still opening too) and throws the failure's error", async () => {
    const close = vi.fn();
    const opens = [opening('a', 0), opening('b', 5, true), opening('c', 30), opening('d', 10, true)];
    await expect(openAll(opens, close)).rejects.toThrow('b: connect ECONNREFUSED');
    expect(close.mock.calls.map(([opened]) => opened)).toEqual(['a', 'c']);
  });

  it('a close that fails hides not the error of the open', async () => {
    const close = vi.fn(async () => {
      throw new Error('already closed');
    });
    await expect(openAll([opening('a', 0), opening('b', 0, true)], close)).rejects.toThrow('b: connect ECONNREFUSED');
    expect(close).toHaveBeenCalledTimes(1);
  });
});
