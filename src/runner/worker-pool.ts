/**
 * The client workers' lives: forked at once, ready, started with the test's origin, lost
 * (killed from outside, crashed), replaced (client-kill), stopped and killed, each cycle
 * ended on the record when the client cannot end it. What they say is the channel's
 * (worker-channel.ts); what the nemesis does to them goes through `clients`
 * (fault-clients.ts).
 */
import type { UnindexedOp } from '../history/recorder.js';
import { untilAborted, withDeadline } from '../util/deadline.js';
import { UserError } from '../util/errors.js';
import { type Origin, sinceOrigin } from '../util/monotonic-clock.js';
import type { ToWorker, WorkerConfig } from '../worker/protocol.js';
import { type ClientWorker, forkWorker, killProgram, sumPoints, workerEntry } from './client-worker.js';
import { FaultClients } from './fault-clients.js';
import type { Stall } from './machine-stalls.js';
import type { BrokenProgram } from './program-failures.js';
import { WorkerChannel } from './worker-channel.js';

export class WorkerPool {
  private readonly workers: ClientWorker[] = [];
  private readonly channel: WorkerChannel;
  /** The clients as the nemesis sees them: who holds, their processes, a point to catch one at. */
  readonly clients: FaultClients;
  /** Workers that exited before they were asked to stop (killed from outside, crashed). */
  readonly lost: { client: number; code: number | null; signal: string | null; atS?: number }[] = [];
  /** Clients whose worker exited on its own with its cycle open on the record (its last operations never arrived). */
  readonly exitedOpen: number[] = [];
  /** Each client's configuration, for a replacement (client-kill). */
  private readonly configs = new Map<number, WorkerConfig>();
  private stopping = false;
  /** Ctrl-C while the clients finished: they stop mid-cycle (stop-now), on the record by the harness. */
  private interrupting = false;
  private goAt?: number;
  private origin?: Origin;
  private onReady?: () => void;

  /**
   * Forks `count` workers at once, before they are given their configuration (start()):
   * a worker's imports (the client libraries) take CPU for about a second, which then
   * overlaps the cluster's start instead of following it.
   */
  constructor(
    private readonly runId: string,
    count: number,
    private readonly record: (op: UnindexedOp) => void,
    /** The worker program (tests give a fake one that speaks the protocol). */
    private readonly entry = workerEntry(),
  ) {
    this.channel = new WorkerChannel({
      record,
      origin: () => this.origin,
      stopping: () => this.stopping,
      clientOf: (worker) => this.workers.indexOf(worker),
      readinessChanged: () => this.onReady?.(),
    });
    this.clients = new FaultClients(this.workers, this.channel, (client, why) => this.replace(client, why));
    for (let client = 0; client < count; client++) this.workers.push(this.spawn(client));
  }

  /** Errors workers reported (a bug, not a fault): they make the run's verdict an error. */
  get errors(): readonly string[] {
    return this.channel.errors;
  }
  /** Client programs that announced more distinct code points than they may: which, and the cap. */
  get pointsCapped(): readonly { client: number; cap: number }[] {
    return this.channel.pointsCapped;
  }
  /** Client programs that stopped speaking the protocol (crashed, hung, garbage): which, and why in one line. */
  get brokenPrograms(): readonly BrokenProgram[] {
    return this.channel.brokenPrograms;
  }
  /** Times a worker did not run (the nemesis's pauses among them), for runner/machine-stalls.ts. */
  get stalls(): readonly Stall[] {
    return this.channel.stalls;
  }

  /** Forks the worker of one client slot; `cgroupName`: its program's (a replacement's has its own). */
  private spawn(client: number, cgroupName = `c${client}`): ClientWorker {
    const { worker, closed } = forkWorker(this.entry, this.runId, client, cgroupName, (w) => this.finished(w, client));
    worker.child.once('exit', (code, signal) => {
      if (this.stopping || worker.replaced) return;
      const atS = this.goAt === undefined ? undefined : (Date.now() - this.goAt) / 1000;
      const lost = () => this.lost.push({ client, code, signal, ...(atS === undefined ? {} : { atS }) });
      // A worker ends on its own, with code 0, only when its client program broke: that is
      // the condition then (told over the channel, so known once all of it is read).
      if (code === 0) {
        void closed.then(() => {
          if (!this.channel.brokenPrograms.some((b) => b.client === client)) lost();
        });
        return;
      }
      lost();
      // Its client program outlives it otherwise (a group of its own), paused perhaps.
      killProgram(worker);
      // Ended at once, so that what its death lets another client do (a session closed,
      // its lock freed) comes after the end in the history; at the time the record last
      // saw it, since it may have died any time after that.
      const how = signal ? `killed by ${signal}` : `exit code ${code}`;
      this.endCycle(worker, `client worker lost (${how})`, worker.lastSeen);
    });
    this.channel.listen(worker, client);
    return worker;
  }

  /**
   * A worker that ends on its own ends its cycle; if the record says otherwise, its last
   * operations never arrived: the harness ends the cycle where the record last saw the
   * client, and the run says its history lacks something.
   */
  private finished(worker: ClientWorker, client: number): void {
    if (worker.ended || !worker.cycle.open) return;
    if (this.interrupting) {
      this.endCycle(worker, 'the run was interrupted; the client stopped in the middle of its cycle');
      return;
    }
    this.exitedOpen.push(client);
    this.endCycle(worker, 'the client exited with its cycle open', worker.lastSeen);
  }

  /**
   * Kills a client whole, its worker and its program (SIGKILL: a crash, at whatever point
   * it was), its cycle ended on the record first, and starts a fresh client in its place
   * with the next process number, which connects and joins the workload. False when the
   * run is stopping or has not begun.
   */
  private replace(client: number, why: string): boolean {
    const old = this.workers[client];
    const config = this.configs.get(client);
    if (!old || !config || this.stopping || this.origin === undefined) return false;
    this.endCycle(old, why);
    old.replaced = true;
    old.child.kill('SIGKILL');
    killProgram(old);
    const process = old.process + this.workers.length;
    const fresh = this.spawn(client, `c${client}-p${process}`);
    fresh.process = process;
    fresh.replacement = true;
    fresh.reachedBefore = sumPoints([old.reachedBefore ?? {}, old.reached]);
    this.workers[client] = fresh;
    this.channel.send(fresh, { type: 'start', config: { ...config, firstProcess: process } });
    return true;
  }

  /**
   * Has every worker load the modules its client will need, before its configuration comes,
   * and start its client program (`program`: the command and its folder), if it drives one.
   */
  preload(
    modules: Omit<Extract<ToWorker, { type: 'preload' }>, 'type' | 'launch'>,
    program?: { command: string; cwd?: string },
  ): void {
    this.workers.forEach((worker, client) => {
      this.channel.send(worker, {
        type: 'preload',
        ...modules,
        ...(program ? { launch: { ...program, client } } : {}),
      });
    });
  }

  /** Gives each worker its configuration (client k the k-th): it connects, then says ready. */
  start(configs: readonly WorkerConfig[]): void {
    for (const config of configs) {
      this.configs.set(config.client, config);
      const worker = this.workers[config.client];
      if (worker) this.channel.send(worker, { type: 'start', config });
    }
  }

  /** How often the clients reached each code point, summed over all of them. */
  pointsReached(): Record<string, number> {
    return sumPoints(this.workers.flatMap((w) => [w.reachedBefore ?? {}, w.reached]));
  }

  /**
   * Writes the end of the worker's cycle (cycle-ends.ts), once, at `at` (default: now);
   * from then on what the worker sends is not recorded, so nothing of it can land after
   * its end. Before the workload began there is no cycle to end.
   */
  private endCycle(worker: ClientWorker, why: string, at?: number): void {
    if (worker.ended || this.origin === undefined) return;
    worker.ended = true;
    for (const op of worker.cycle.end(at ?? sinceOrigin(this.origin), why)) this.record(op);
  }

  /** Resolves when every worker has connected; rejects when one failed or exited first. */
  ready(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const { brokenPrograms, errors } = this.channel;
      const check = () => {
        // A client program that cannot start or answer its init is the user's to fix, in
        // one line as client-check gives it (the worker's error is its stack).
        const broken = brokenPrograms[0];
        if (broken) return reject(new UserError(`client ${broken.client}'s program broke at its start: ${broken.why}`));
        // A worker's failure is judged once all it sent has been read: its program's break
        // comes over the channel, and can arrive after its exit, or after a write to it
        // failed because it had closed the channel (a busy runner reads late).
        const ended = (w: ClientWorker) => w.child.exitCode !== null || w.sendFailed === true;
        if (this.workers.some((w) => !w.ready && ended(w) && !w.heardAll)) return;
        if (errors.length > 0) return reject(new Error(`client workers failed:\n${errors.join('\n')}`));
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
  go(origin: Origin): void {
    this.goAt = Date.now();
    this.origin = origin;
    for (const w of this.workers) this.channel.send(w, { type: 'go', origin: origin.toString() });
  }

  /** The largest process number any client used. */
  maxProcess(): number {
    return Math.max(0, ...this.workers.map((w) => w.process));
  }

  /** Asks every worker to finish its cycle; kills those not done within graceMs, or once `signal` aborts. */
  async stop(graceMs: number, signal?: AbortSignal): Promise<void> {
    this.stopping = true;
    for (const w of this.workers) this.channel.send(w, { type: 'stop' });
    const all = Promise.all(this.workers.map((w) => w.finished));
    // `all` never fails (each worker's resolves when it exits): the one rejection is the grace
    // running out (or Ctrl-C), after which those still running are killed.
    await untilAborted(
      withDeadline(all, graceMs, () => new Error(`workers still running after ${graceMs} ms`)),
      signal,
    ).catch(() => {});
    if (signal?.aborted) {
      // Interrupted: each worker sends what it recorded and exits at once, a request in
      // flight left unanswered (its end is the harness's, below). Killed without this, an
      // invoke still in a worker's batch is lost while its write reached the store: an
      // element no one wrote, a lost-updates false alarm of the harness's own making.
      this.interrupting = true;
      for (const w of this.workers) this.channel.send(w, { type: 'stop-now' });
      await withDeadline(all, 1000, () => new Error('workers still running')).catch(() => {});
    }
    this.kill(
      signal?.aborted
        ? 'the run was interrupted while the client finished its cycle; the runner killed it'
        : `the client had not finished its cycle ${graceMs} ms after the stop; the runner killed it`,
    );
    await all;
  }

  /**
   * Ends every worker now (also a paused one: SIGKILL works on a stopped process), each
   * cycle ended on the record first, with `why`: the kill comes after the end in the
   * history, so whatever the kill lets another client do comes after it too.
   */
  kill(why = 'the run ended; the runner killed the client'): void {
    this.stopping = true;
    for (const w of this.workers) {
      if (w.child.exitCode === null && w.child.signalCode === null) {
        this.endCycle(w, why);
        w.child.kill('SIGKILL');
        killProgram(w);
      }
    }
  }
}
