import { describe, expect, it } from 'vitest';
import { threadAnswer } from './thread-answer.js';

/** A thread from its source: a data: URL, as a compiled file would be. */
const thread = (source: string) =>
  new URL(`data:text/javascript,${encodeURIComponent(`import { parentPort } from 'node:worker_threads';\n${source}`)}`);

describe('threadAnswer', () => {
  it('reads messages until one is the answer', async () => {
    const seen: string[] = [];
    const answer = await threadAnswer<string, string>(
      thread("parentPort.postMessage('writing'); parentPort.postMessage('built');"),
      {},
      undefined,
      (m) => {
        seen.push(m);
        return m === 'built' ? { answer: `${m}!` } : undefined;
      },
    );
    expect(answer).toBe('built!');
    expect(seen).toEqual(['writing', 'built']);
  });

  it('is undefined once the signal is aborted, the thread ended', async () => {
    const stop = new AbortController();
    const pending = threadAnswer(thread('setInterval(() => {}, 1000);'), {}, stop.signal, () => ({ answer: 1 }));
    stop.abort();
    expect(await pending).toBeUndefined();
  });

  it('rejects with a failure the reader names, or an exit with no answer', async () => {
    const failing = threadAnswer<string, never>(thread("parentPort.postMessage('no');"), {}, undefined, (m) => ({
      failure: new Error(`said ${m}`),
    }));
    await expect(failing).rejects.toThrow('said no');
    const silent = threadAnswer(thread('process.exit(3);'), {}, undefined, () => ({ answer: 1 }), 'the silent thread');
    await expect(silent).rejects.toThrow('the silent thread exited with code 3 before it answered');
  });
});
