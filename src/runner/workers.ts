/**
 * The client worker processes of a run: forking them, following who holds the lock (for
 * the nemesis), and ending them. A worker is a real process so that SIGSTOP pauses it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { ownerLabel, WORKER_ENV } from '../cluster/labels.js';
import type { UnindexedOp } from '../history/recorder.js';
import type { ClientFaultTarget } from '../nemesis/context.js';
import { withDeadline } from '../util/deadline.js';
import { packageRoot } from '../util/paths.js';
import type { FromWorker, ToWorker, WorkerConfig } from '../worker/protocol.js';

/** The built worker (also when the runner itself runs from TypeScript sources, in vitest). */
const workerEntry = () => join(packageRoot, 'dist/src/worker/worker.js');

interface Worker {
  child: ChildProcess;
  process: number;
  /** While it holds the lock: the value of the acquire that made it a holder (always an object). */
  grant?: unknown;
  ready: boolean;
  finished: Promise<void>;
  /** Resolves a pending armPause() when the worker stops itself. */
  selfPaused?: () => void;
}

export class WorkerPool implements ClientFaultTarget {
  private readonly workers: Worker[] = [];
  /** Errors workers reported (a bug, not a fault): they make the run's verdict an error. */
  readonly errors: string[] = [];
  /** Workers that exited before they were asked to stop (killed from outside, crashed). */
  readonly lost: { client: number; code: number | null; signal: string | null; atS?: number }[] = [];
  private stopping = false;
  private goAt?: number;

  /**
   * Forks `count` workers at once, before they are given their configuration (start()):
   * a worker's imports (the client libraries) take CPU for about a second, which then
   * overlaps the cluster's start instead of following it.
   */
  constructor(
    runId: string,
    count: number,
    private readonly record: (op: UnindexedOp) => void,
    /** The worker program (tests give a fake one that speaks the protocol). */
    entry = workerEntry(),
  ) {
    for (let client = 0; client < count; client++) {
      const child = fork(entry, [], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        env: { ...process.env, [WORKER_ENV]: `${runId}@${ownerLabel()}` },
      });
      const worker: Worker = {
        child,
        process: client,
        ready: false,
        finished: new Promise((resolve) => child.once('exit', () => resolve())),
      };
      child.once('exit', (code, signal) => {
        if (this.stopping) return;
        const atS = this.goAt === undefined ? undefined : (Date.now() - this.goAt) / 1000;
        this.lost.push({ client, code, signal, ...(atS === undefined ? {} : { atS }) });
      });
      child.on('message', (m: FromWorker) => this.onMessage(worker, m));
      child.on('error', (err) => this.errors.push(`worker ${client}: ${err.message}`));
      this.workers.push(worker);
    }
  }

  /** Gives each worker its configuration (client k the k-th): it connects, then says ready. */
  start(configs: readonly WorkerConfig[]): void {
    for (const config of configs) {
      const worker = this.workers[config.client];
      if (worker) this.send(worker, { type: 'start', config });
    }
  }

  private send(worker: Worker, message: ToWorker) {
    if (worker.child.connected) worker.child.send(message);
  }

  private onMessage(worker: Worker, m: FromWorker) {
    if (m.type === 'ops') {
      for (const op of m.ops) {
        worker.process = op.process as number;
        if (op.f === 'acquire' && op.type === 'ok') worker.grant = op.value ?? {};
        else if ((op.f === 'release' && op.type === 'invoke') || op.type === 'info') worker.grant = undefined;
        this.record(op);
      }
    } else if (m.type === 'ready') {
      worker.ready = true;
      this.onReady?.();
    } else if (m.type === 'self-paused') {
      worker.selfPaused?.();
    } else if (m.type === 'error') {
      this.errors.push(`worker ${this.workers.indexOf(worker)}: ${m.message}`);
      this.onReady?.();
    }
  }

  grant(client: number): unknown {
    return this.workers[client]?.grant;
  }
  count(): number {
    return this.workers.length;
  }
  private onReady?: () => void;

  /** Resolves when every worker has connected; rejects when one failed or exited first. */
  ready(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.errors.length > 0) return reject(new Error(`client workers failed:\n${this.errors.join('\n')}`));
        if (this.workers.every((w) => w.ready)) return resolve();
        const dead = this.workers.findIndex((w) => !w.ready && w.child.exitCode !== null);
        if (dead >= 0) return reject(new Error(`client worker ${dead} exited before it was ready`));
      };
      this.onReady = check;
      for (const w of this.workers) void w.finished.then(check);
      setTimeout(() => reject(new Error(`client workers not connected after ${timeoutMs} ms`)), timeoutMs).unref();
      check();
    });
  }

  /** Starts every worker's workload with the test's origin. */
  go(origin: bigint): void {
    this.goAt = Date.now();
    for (const w of this.workers) this.send(w, { type: 'go', origin: origin.toString() });
  }

  holders(): number[] {
    return this.workers.flatMap((w, i) => (w.grant !== undefined && w.child.exitCode === null ? [i] : []));
  }
  pid(client: number): number | undefined {
    return this.workers[client]?.child.pid;
  }
  process(client: number): number {
    return this.workers[client]?.process ?? client;
  }
  /**
   * Asks a worker to stop itself at a pause point, and when resumed to step its own clock
   * by clockStepMs; true once it has stopped, false if it did not get there within
   * timeoutMs (then the point is disarmed again).
   */
  async armPause(client: number, where: string, timeoutMs: number, clockStepMs?: number): Promise<boolean> {
    const worker = this.workers[client];
    if (!worker) return false;
    const paused = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      worker.selfPaused = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    this.send(worker, { type: 'arm-pause', where, clockStepMs });
    const ok = await paused;
    worker.selfPaused = undefined;
    if (!ok) this.send(worker, { type: 'disarm-pause' });
    return ok;
  }

  /** The largest process number any client used. */
  maxProcess(): number {
    return Math.max(0, ...this.workers.map((w) => w.process));
  }

  /** Asks every worker to finish its cycle; kills those not done within graceMs. */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    for (const w of this.workers) this.send(w, { type: 'stop' });
    const all = Promise.all(this.workers.map((w) => w.finished));
    // `all` never fails (each worker's resolves when it exits): the one rejection is the grace
    // running out, after which those still running are killed.
    await withDeadline(all, graceMs, () => new Error(`workers still running after ${graceMs} ms`)).catch(() => {});
    this.kill();
    await all;
  }

  /** Ends every worker now (also a paused one: SIGKILL works on a stopped process). */
  kill(): void {
    this.stopping = true;
    for (const w of this.workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    }
  }
}
