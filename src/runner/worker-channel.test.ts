/**
 * The channel's messages, with a stand-in for a worker's child process (an emitter that
 * keeps what was sent to it): what an answer does, and when a failed write is a failure.
 */
import type { ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { UnindexedOp } from '../history/recorder.js';
import type { FromWorker, ToWorker } from '../worker/protocol.js';
import type { ClientWorker } from './client-worker.js';
import { OpenCycle } from './cycle-ends.js';
import { type ChannelHost, WorkerChannel } from './worker-channel.js';

class FakeChild extends EventEmitter {
  connected = true;
  readonly sent: ToWorker[] = [];
  failWith?: Error;
  send(message: ToWorker, done: (err: Error | null) => void): boolean {
    this.sent.push(message);
    done(this.failWith ?? null);
    return true;
  }
}

function channel(host: Partial<ChannelHost> = {}) {
  const child = new FakeChild();
  const worker: ClientWorker = {
    child: child as unknown as ChildProcess,
    process: 0,
    cycle: new OpenCycle(),
    ended: false,
    ready: false,
    reached: {},
    finished: new Promise(() => {}),
  };
  const ops: UnindexedOp[] = [];
  let readiness = 0;
  const c = new WorkerChannel({
    record: (op) => ops.push(op),
    origin: () => undefined,
    stopping: () => false,
    clientOf: () => 3,
    readinessChanged: () => readiness++,
    ...host,
  });
  c.listen(worker, 3);
  const hear = (m: FromWorker) => child.emit('message', m);
  return { c, child, worker, ops, hear, readiness: () => readiness };
}

const acquired: UnindexedOp[] = [
  { process: 7, type: 'invoke', f: 'acquire', key: 'l', time: 1 },
  { process: 7, type: 'ok', f: 'acquire', key: 'l', value: { token: 1 }, time: 5 },
];

describe('WorkerChannel', () => {
  it('records the ops a worker sends and follows its cycle, until the harness ended it', () => {
    const { worker, ops, hear } = channel();
    hear({ type: 'ops', ops: acquired });
    expect(ops).toEqual(acquired);
    expect(worker.process).toBe(7);
    expect(worker.lastSeen).toBe(5);
    expect(worker.cycle.held?.value).toEqual({ token: 1 });
    worker.ended = true;
    hear({ type: 'ops', ops: [{ process: 7, type: 'invoke', f: 'release', key: 'l', time: 9 }] });
    expect(ops).toHaveLength(2);
  });

  it('lets a worker at a point go on unless the point is armed, then hands it over once', () => {
    const { c, child, worker, hear } = channel();
    hear({ type: 'at-point', where: 'p', seq: 1 });
    expect(child.sent).toEqual([{ type: 'point-go', seq: 1 }]);
    const caught: [ClientWorker, number][] = [];
    c.arm('p', (w, seq) => caught.push([w, seq]));
    hear({ type: 'at-point', where: 'p', seq: 2 });
    expect(caught).toEqual([[worker, 2]]);
    expect(child.sent).toHaveLength(1);
    c.disarm('p');
    hear({ type: 'at-point', where: 'p', seq: 3 });
    expect(child.sent.at(-1)).toEqual({ type: 'point-go', seq: 3 });
  });

  it('sends a ready replacement its go once the workload began, and says readiness changed', () => {
    const { child, worker, hear, readiness } = channel({ origin: () => 42n });
    worker.replacement = true;
    hear({ type: 'ready' });
    expect(worker.ready).toBe(true);
    expect(child.sent).toEqual([{ type: 'go', origin: '42' }]);
    hear({ type: 'error', message: 'cannot connect' });
    expect(readiness()).toBe(2);
  });

  it('keeps what workers report: errors, stalls, capped points, broken programs and when', () => {
    const { c, worker, hear } = channel({ origin: () => process.hrtime.bigint() });
    worker.lastSeen = 11;
    hear({ type: 'error', message: 'boom' });
    hear({ type: 'stall', fromNs: 1, toNs: 2 });
    hear({ type: 'points-capped', cap: 64 });
    hear({ type: 'program-broken', why: 'it exited' });
    hear({ type: 'program-started', pid: -99 });
    hear({ type: 'points', reached: { a: 2 } });
    expect(c.errors).toEqual(['worker 3: boom']);
    expect(c.stalls).toEqual([{ process: 0, fromNs: 1, toNs: 2 }]);
    expect(c.pointsCapped).toEqual([{ client: 3, cap: 64 }]);
    expect(c.brokenPrograms).toMatchObject([{ client: 3, why: 'it exited', sinceNs: 11 }]);
    expect(c.brokenPrograms[0]?.atNs).toBeGreaterThanOrEqual(0);
    expect(worker.programPid).toBe(-99);
    expect(worker.reached).toEqual({ a: 2 });
  });

  it('counts a failed write as an error unless the pool is stopping or the worker was replaced', () => {
    let stopping = false;
    const { c, child, worker } = channel({ stopping: () => stopping });
    child.failWith = new Error('EPIPE');
    c.send(worker, { type: 'stop' });
    expect(worker.sendFailed).toBe(true);
    expect(c.errors).toEqual(['worker 0: EPIPE']);
    stopping = true;
    c.send(worker, { type: 'stop' });
    worker.replaced = true;
    stopping = false;
    c.send(worker, { type: 'stop' });
    expect(c.errors).toHaveLength(1);
    child.connected = false;
    c.send(worker, { type: 'go', origin: '1' });
    expect(child.sent).toHaveLength(3);
  });
});
