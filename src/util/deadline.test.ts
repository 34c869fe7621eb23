import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepTrying, untilAborted, withDeadline } from './deadline.js';
import { UserError } from './errors.js';

/**
 * A promise that fails only when told (`fail`), and whether its failure, once told, reached
 * the process as an unhandled rejection: the promise a wait left behind must be handled.
 */
function failingLater() {
  let fail: (err: Error) => void = () => {};
  const slow = new Promise<never>((_, reject) => {
    fail = reject;
  });
  const failsUnhandled = async (err: Error): Promise<boolean> => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    fail(err);
    await new Promise((resolve) => setTimeout(resolve, 10));
    process.off('unhandledRejection', unhandled);
    return unhandled.mock.calls.length > 0;
  };
  return { slow, failsUnhandled };
}

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
    const { slow, failsUnhandled } = failingLater();
    await expect(withDeadline(slow, 1, () => new Error('deadline'))).rejects.toThrow('deadline');
    expect(await failsUnhandled(new Error('afterwards'))).toBe(false);
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

  it('a promise given after the abort that fails later is no unhandled rejection', async () => {
    const abort = new AbortController();
    abort.abort('SIGINT');
    const { slow, failsUnhandled } = failingLater();
    await expect(untilAborted(slow, abort.signal)).rejects.toBe('SIGINT');
    expect(await failsUnhandled(new Error('workers still running after 150 ms'))).toBe(false);
  });
});

describe('keepTrying', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** An attempt that fails `failures` times (each with its number), then answers 'up'. */
  const failing = (failures: number) => {
    let n = 0;
    return vi.fn(async () => {
      n++;
      if (n <= failures) throw new Error(`attempt ${n} failed`);
      return 'up';
    });
  };

  it('answers the first attempt that succeeds, waiting longer after each failure', async () => {
    vi.useFakeTimers();
    const attempt = failing(3);
    const result = keepTrying(10_000, attempt);
    await vi.advanceTimersByTimeAsync(100 + 200 + 399);
    expect(attempt).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1);
    await expect(result).resolves.toBe('up');
    expect(attempt).toHaveBeenCalledTimes(4);
  });

  it('gives up with the last error once its patience is spent', async () => {
    vi.useFakeTimers();
    const attempt = failing(100);
    const result = keepTrying(1000, attempt);
    result.catch(() => {});
    await vi.advanceTimersByTimeAsync(1000);
    // 0, 100, 300, 700 ms: a fifth attempt (at 1500) would come after the patience.
    await expect(result).rejects.toThrow('attempt 4 failed');
    expect(attempt).toHaveBeenCalledTimes(4);
  });

  it('tries no more once its signal is aborted', async () => {
    const stop = new AbortController();
    const attempt = vi.fn(async () => {
      stop.abort();
      throw new Error('refused');
    });
    await expect(keepTrying(60_000, attempt, { signal: stop.signal })).rejects.toThrow('refused');
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it("tries no more after a UserError: a user's mistake does not pass", async () => {
    vi.useFakeTimers();
    const attempt = vi.fn(async () => {
      throw new UserError('cannot load backend module ./lock.mjs: no such file');
    });
    const result = keepTrying(20_000, attempt);
    result.catch(() => {});
    await vi.advanceTimersByTimeAsync(20_000);
    await expect(result).rejects.toThrow(UserError);
    expect(attempt).toHaveBeenCalledTimes(1);
  });
});
