/**
 * The runner's side of the worker protocol, spoken to the built worker (dist/, which npm
 * test builds first) over its IPC channel, before any lock service is reached: what it
 * answers and when it lets go of the channel. No container, no backend.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../util/monotonic-clock.js';
import type { FromWorker, ToWorker, WorkerConfig } from './protocol.js';

const entry = new URL('../../dist/src/worker/worker.js', import.meta.url).pathname;

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Whether a process catches SIGHUP (/proc/PID/status SigCgt, bit 0). */
const catchesHangup = (pid: number) =>
  (BigInt(`0x${/^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '0'}`) & 1n) === 1n;

/**
 * A worker listening, the messages it sends (in order), and its exit. A message sent
 * before its imports are done has no listener yet: its handlers are set together, and
 * SIGHUP's says they are (as ctrl-c.test.ts waits).
 */
async function worker() {
  const child = fork(entry, [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  children.push(child);
  const messages: FromWorker[] = [];
  child.on('message', (m: FromWorker) => messages.push(m));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const disconnected = new Promise<void>((resolve) => child.once('disconnect', () => resolve()));
  const send = (m: ToWorker) => child.send(m);
  while (!catchesHangup(child.pid as number)) await sleep(20);
  return { messages, exited, disconnected, send };
}

/** A client's configuration as the runner sends it, for a workload that does not exist. */
const startOf = (workload: string): WorkerConfig => ({
  client: 0,
  nodes: [],
  store: { name: 'store', ip: '127.0.0.1' },
  run: {
    config: { workload, seed: 1, backend: 'redis', requestTimeoutMs: 500 } as WorkerConfig['run']['config'],
    backendOptions: { ttlMs: 1000 } as WorkerConfig['run']['backendOptions'],
    backendName: 'redis',
    lock: 'l',
    storeKey: 'S',
  },
});

describe('the worker protocol', () => {
  it('answers a start it cannot run with one error, then closes the channel and exits 0', async () => {
    const w = await worker();
    w.send({ type: 'start', config: startOf('no-such-workload') });
    await w.disconnected;
    expect(await w.exited).toBe(0);
    expect(w.messages).toHaveLength(1);
    expect(w.messages[0]).toMatchObject({ type: 'error' });
    expect((w.messages[0] as { message: string }).message).toMatch(/unknown workload: no-such-workload/);
  });

  it('on stop-now sends what it recorded (nothing yet) as its last message, and exits', async () => {
    const w = await worker();
    w.send({ type: 'stop-now' });
    expect(await w.exited).toBe(0);
    expect(w.messages).toEqual([{ type: 'ops', ops: [] }]);
  });
});
