import { afterEach, describe, expect, it, vi } from 'vitest';
import { untilAborted, withDeadline } from './deadline.js';

describe('withDeadline', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers as the promise does when it settles in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const makeError = vi.fn(() => new Error('late'));
    await expect(withDeadline(Promise.resolve(7), 1000, makeError)).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('no')), 1000, makeError)).rejects.toThrow('no');
    expect(vi.getTimerCount()).toBe(0);
    expect(makeError).not.toHaveBeenCalled();
  });

  it('rejects with the error it is given once ms have passed, and not before', async () => {
    vi.useFakeTimers();
    let settled = false;
    const late = withDeadline(new Promise<number>(() => {}), 1000, () => new Error('took too long'));
    late
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(late).rejects.toThrow('took too long');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a promise that fails after its deadline is no unhandled rejection', async () => {
    let fail: (err: Error) => void = () => {};
    const slow = new Promise<never>((_, reject) => {
      fail = reject;
    });
    await expect(withDeadline(slow, 1, () => new Error('deadline'))).rejects.toThrow('deadline');
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    fail(new Error('afterwards'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off('unhandledRejection', unhandled);
    expect(unhandled).not.toHaveBeenCalled();
  });
});

describe('untilAborted', () => {
  it("rejects with the signal's reason once aborted, and with nothing else otherwise", async () => {
    const abort = new AbortController();
    const never = untilAborted(new Promise(() => {}), abort.signal);
    abort.abort('SIGINT');
    await expect(never).rejects.toBe('SIGINT');
    await expect(untilAborted(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(untilAborted(Promise.resolve(7), abort.signal)).rejects.toBe('SIGINT');
  });
});
