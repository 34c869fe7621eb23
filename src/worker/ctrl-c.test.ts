/**
 * Ctrl-C reaches every process of the terminal's foreground group: the runner's client
 * workers too. A worker leaves it to the runner (which stops the clients through the
 * channel) and ends when its channel closes, not by the signal. The built worker (dist/,
 * which npm test builds first).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sleep } from '../util/monotonic-clock.js';

const entry = new URL('../../dist/src/worker/worker.js', import.meta.url).pathname;

/** The signals a process catches (/proc/PID/status SigCgt: bit n-1 for signal n). */
function caught(pid: number): bigint {
  const line = /^SigCgt:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return BigInt(`0x${line?.[1] ?? '0'}`);
}
const SIGHUP = 1n << 0n;

describe('a client worker under Ctrl-C', () => {
  it('lives through SIGINT, and ends when its runner closes the channel', async () => {
    const child = fork(entry, [], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (code, signal) => resolve([code, signal])),
    );
    const pid = child.pid as number;
    // Its handlers are set together once its imports are done: SIGHUP's says they are.
    while ((caught(pid) & SIGHUP) === 0n) await sleep(50);
    child.kill('SIGINT');
    await sleep(200);
    expect([child.exitCode, child.signalCode]).toEqual([null, null]);
    child.disconnect();
    expect(await exited).toEqual([0, null]);
  });
});
