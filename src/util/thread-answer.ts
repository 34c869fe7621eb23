/**
 * One answer from a worker thread that a signal may end: how the checks and the report run
 * off the calling thread, which so stays free to hear Ctrl-C while a long search or a large
 * page is built.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** What a message from the thread comes to: the answer, a failure, or nothing yet (`undefined`). */
export type ThreadMessageOutcome<A> = { answer: A } | { failure: Error } | undefined;

/**
 * Starts the thread and resolves with its answer, as `read` makes it of its messages, or
 * with undefined once `signal` is aborted (the thread is terminated; nothing of it is
 * kept). Rejects with the thread's error, a failure `read` names, or an exit with no answer.
 */
export function threadAnswer<M, A>(
  url: URL,
  options: Pick<WorkerOptions, 'workerData' | 'resourceLimits'>,
  signal: AbortSignal | undefined,
  read: (message: M) => ThreadMessageOutcome<A>,
  what = 'the thread',
): Promise<A | undefined> {
  const listen = signal?.aborted ? undefined : signal;
  const thread = new Worker(url, options);
  return new Promise((resolve, reject) => {
    let answered = false;
    const settle = () => {
      answered = true;
      listen?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      settle();
      resolve(undefined);
      void thread.terminate();
    };
    listen?.addEventListener('abort', onAbort, { once: true });
    thread.on('message', (message: M) => {
      if (answered) return;
      const outcome = read(message);
      if (outcome === undefined) return;
      settle();
      if ('answer' in outcome) resolve(outcome.answer);
      else reject(outcome.failure);
      void thread.terminate();
    });
    thread.once('error', (err) => {
      if (answered) return;
      settle();
      reject(err);
    });
    thread.once('exit', (code) => {
      if (answered) return;
      settle();
      reject(new Error(`${what} exited with code ${code} before it answered`));
    });
  });
}
