/**
 * The client worker processes of a run: forking them, following who holds the lock (for
 * the nemesis), and ending them. A worker is a real process so that SIGSTOP pauses it.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { clientCgroupName, ownerLabel, WORKER_ENV } from '../cluster/labels.js';
import type { UnindexedOp } from '../history/recorder.js';
import { type CaughtAtPoint, type ClientFaultTarget, signalAll } from '../nemesis/context.js';
import { cgroupPath, cgroupPids, killCgroup } from '../util/cgroup.js';
import { untilAborted, withDeadline } from '../util/deadline.js';
import { UserError } from '../util/errors.js';
import { type Origin, sinceOrigin } from '../util/monotonic-clock.js';
import { packageRoot } from '../util/paths.js';
import { groupMembers } from '../util/process-group.js';
import type { FromWorker, ToWorker, WorkerConfig } from '../worker/protocol.js';
import { OpenCycle } from './cycle-ends.js';
import type { Stall } from './machine-stalls.js';
import type { BrokenProgram } from './program-failures.js';

/** The built worker (also when the runner itself runs from TypeScript sources, in vitest). */
const workerEntry = () => join(packageRoot, 'dist/src/worker/worker.js');

interface Worker {
  child: ChildProcess;
  process: number;
  /** Its cycle as the record shows it (the lock it holds, the grant), to end it on the record if the client cannot. */
  cycle: OpenCycle;
  /** The harness wrote the end of its cycle: what the worker sends after that is not recorded. */
  ended: boolean;
  /** The time of its latest recorded operation (ns since the origin). */
  lastSeen?: number;
  ready: boolean;
  /** Resolves when the process has exited and its channel is closed (every message it sent has arrived). */
  finished: Promise<void>;
  /** `finished` has resolved: nothing more will come from it. */
  heardAll?: boolean;
  /** A message to it could not be written (its channel had closed). */
  sendFailed?: boolean;
  /** The client program the worker drives (the client protocol), once it has started. */
  programPid?: number;
  /** The cgroup its program runs in, where cgroups can be made (the worker made it; its name is the run's). */
  cgroup?: string;
  /** How often it reached each code point (its latest cumulative count). */
  reached: Record<string, number>;
  /** Killed by the nemesis (client-kill) and replaced: its exit is no loss. */
  replaced?: boolean;
  /** It replaces one the nemesis killed: it joins the workload once ready. */
  replacement?: boolean;
  /** Points reached by the clients this one replaced, kept for coverage. */
  reachedBefore?: Record<string, number>;
}

/**
 * Kills the client program a worker drives (its process group; SIGKILL ends a paused one
 * too): a worker killed, or lost, cannot close it, and a program in its own group would
 * outlive it, perhaps stopped for good. Only while the worker had it: a closed program's
 * group id may name another group later.
 */
function killProgram(w: Worker): void {
  if (w.programPid === undefined) return;
  if (w.cgroup !== undefined) killCgroup(w.cgroup);
  try {
    process.kill(w.programPid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Point counts added up. */
function sumPoints(counts: readonly Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const c of counts) for (const [p, n] of Object.entries(c)) sum[p] = (sum[p] ?? 0) + n;
  return sum;
}

export class WorkerPool implements ClientFaultTarget {
  private readonly workers: Worker[] = [];
  /** Errors workers reported (a bug, not a fault): they make the run's verdict an error. */
  readonly errors: string[] = [];
  /** Workers that exited before they were asked to stop (killed from outside, crashed). */
  readonly lost: { client: number; code: number | null; signal: string | null; atS?: number }[] = [];
  /** Client programs that announced more distinct code points than they may (the rest not counted): which, and the cap. */
  readonly pointsCapped: { client: number; cap: number }[] = [];
  /** Client programs that stopped speaking the protocol (crashed, hung, garbage): which, and why in one line. */
  readonly brokenPrograms: BrokenProgram[] = [];
  /** Clients whose worker exited on its own with its cycle open on the record (its last operations never arrived). */
  readonly exitedOpen: number[] = [];
  /** Times a worker did not run (the nemesis's pauses among them), for runner/machine-stalls.ts. */
  readonly stalls: Stall[] = [];
  private stopping = false;
  /** Ctrl-C while the clients finished: they stop mid-cycle (stop-now), on the record by the harness. */
  private interrupting = false;
  private goAt?: number;
  private origin?: Origin;

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
    for (let client = 0; client < count; client++) this.workers.push(this.spawn(client));
  }

  /** Forks the worker of one client slot; `cgroupName`: its program's (a replacement's has its own). */
  private spawn(client: number, cgroupName = `c${client}`): Worker {
    const child = fork(this.entry, [], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, [WORKER_ENV]: `${this.runId}@${ownerLabel()}` },
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // The channel closes once the parent has read all the child sent: its last operations.
    const closed = new Promise<void>((resolve) => {
      child.once('disconnect', () => resolve());
      child.once('close', () => resolve());
    });
    const worker: Worker = {
      child,
      process: client,
      cycle: new OpenCycle(),
      ended: false,
      ready: false,
      reached: {},
      cgroup: cgroupPath(clientCgroupName(this.runId, cgroupName)),
      finished: Promise.all([exited, closed]).then(() => {
        worker.heardAll = true;
        // A worker that ends on its own ends its cycle; if the record says otherwise, its
        // last operations never arrived: the harness ends the cycle where the record
        // last saw the client, and the run says its history lacks something.
        if (worker.ended || !worker.cycle.open) return;
        if (this.interrupting) {
          this.endCycle(worker, 'the run was interrupted; the client stopped in the middle of its cycle');
          return;
        }
        this.exitedOpen.push(client);
        this.endCycle(worker, 'the client exited with its cycle open', worker.lastSeen);
      }),
    };
    child.once('exit', (code, signal) => {
      if (this.stopping || worker.replaced) return;
      const atS = this.goAt === undefined ? undefined : (Date.now() - this.goAt) / 1000;
      const lost = () => this.lost.push({ client, code, signal, ...(atS === undefined ? {} : { atS }) });
      // A worker ends on its own, with code 0, only when its client program broke: that is
      // the condition then (told over the channel, so known once all of it is read).
      if (code === 0) {
        void closed.then(() => {
          if (!this.brokenPrograms.some((b) => b.client === client)) lost();
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
    child.on('message', (m: FromWorker) => this.onMessage(worker, m));
    child.on('error', (err) => this.errors.push(`worker ${client}: ${err.message}`));
    return worker;
  }

  /** Each client's configuration, for a replacement (client-kill). */
  private readonly configs = new Map<number, WorkerConfig>();

  /**
   * Kills a client whole, its worker and its program (SIGKILL: a crash, at whatever point
   * it was), its cycle ended on the record first, and starts a fresh client in its place
   * with the next process number, which connects and joins the workload. False when the
   * run is stopping or has not begun.
   */
  crash(client: number, why: string): boolean {
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
    this.send(fresh, { type: 'start', config: { ...config, firstProcess: process } });
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
      this.send(worker, { type: 'preload', ...modules, ...(program ? { launch: { ...program, client } } : {}) });
    });
  }

  /** Gives each worker its configuration (client k the k-th): it connects, then says ready. */
  start(configs: readonly WorkerConfig[]): void {
    for (const config of configs) {
      this.configs.set(config.client, config);
      const worker = this.workers[config.client];
      if (worker) this.send(worker, { type: 'start', config });
    }
  }

  private send(worker: Worker, message: ToWorker) {
    if (!worker.child.connected) return;
    worker.child.send(message, (err) => {
      // A worker that ended between the check and the write (told to stop, it may close its
      // channel at once: EPIPE) is no worker failure; any other failed send is.
      if (!err) return;
      worker.sendFailed = true;
      if (!this.stopping && !worker.replaced) this.errors.push(`worker ${worker.process}: ${err.message}`);
    });
  }

  private onMessage(worker: Worker, m: FromWorker) {
    if (m.type === 'ops') {
      // Its cycle ended by the harness: what it sends after is not recorded.
      if (worker.ended) return;
      for (const op of m.ops) {
        worker.process = op.process as number;
        worker.cycle.follow(op);
        worker.lastSeen = Math.max(worker.lastSeen ?? 0, op.time);
        this.record(op);
      }
    } else if (m.type === 'ready') {
      worker.ready = true;
      // A replacement joins the workload already going.
      if (worker.replacement && this.origin !== undefined) {
        this.send(worker, { type: 'go', origin: this.origin.toString() });
      }
      this.onReady?.();
    } else if (m.type === 'points') {
      worker.reached = m.reached;
    } else if (m.type === 'at-point') {
      // Asked at an armed point: the first client there is caught, any other goes on.
      const catcher = this.pointCatchers.get(m.where);
      if (catcher) catcher(worker, m.seq);
      else this.send(worker, { type: 'point-go', seq: m.seq });
    } else if (m.type === 'stall') {
      this.stalls.push({ process: worker.process, fromNs: m.fromNs, toNs: m.toNs });
    } else if (m.type === 'program-started') {
      worker.programPid = m.pid;
    } else if (m.type === 'points-capped') {
      this.pointsCapped.push({ client: this.workers.indexOf(worker), cap: m.cap });
    } else if (m.type === 'program-broken') {
      // When, for telling a break under a fault (the library's) from one with none near.
      const broken: BrokenProgram = { client: this.workers.indexOf(worker), why: m.why };
      if (this.origin !== undefined) broken.atNs = sinceOrigin(this.origin);
      if (worker.lastSeen !== undefined) broken.sinceNs = worker.lastSeen;
      this.brokenPrograms.push(broken);
    } else if (m.type === 'error') {
      this.errors.push(`worker ${this.workers.indexOf(worker)}: ${m.message}`);
      this.onReady?.();
    }
  }

  /** The catchers of armed code points: the first worker to ask is handed to it. */
  private readonly pointCatchers = new Map<string, (worker: Worker, seq: number) => void>();

  async catchAtPoint(where: string, timeoutMs: number, clockStepMs?: number): Promise<CaughtAtPoint | undefined> {
    const caught = await new Promise<CaughtAtPoint | undefined>((resolve) => {
      const timer = setTimeout(() => {
        this.pointCatchers.delete(where);
        resolve(undefined);
      }, timeoutMs);
      this.pointCatchers.set(where, (worker, seq) => {
        clearTimeout(timer);
        this.pointCatchers.delete(where);
        const client = this.workers.indexOf(worker);
        // Stopped while it waits for its go: the program too, its timers and threads with it.
        const pids = signalAll(this.pids(client), 'SIGSTOP');
        let resumed = false;
        resolve({
          client,
          pids,
          resume: () => {
            if (resumed) return;
            resumed = true;
            signalAll(pids, 'SIGCONT');
            this.send(worker, { type: 'point-go', seq, clockStepMs });
          },
        });
      });
      for (const w of this.workers) this.send(w, { type: 'arm-point', where });
    });
    for (const w of this.workers) this.send(w, { type: 'disarm-point', where });
    return caught;
  }

  /** How often the clients reached each code point, summed over all of them. */
  pointsReached(): Record<string, number> {
    return sumPoints(this.workers.flatMap((w) => [w.reachedBefore ?? {}, w.reached]));
  }

  grant(client: number): unknown {
    return this.workers[client]?.cycle.held?.value;
  }
  grantedAt(client: number): number | undefined {
    return this.workers[client]?.cycle.held?.at;
  }

  /**
   * Writes the end of the worker's cycle (cycle-ends.ts), once, at `at` (default: now);
   * from then on what the worker sends is not recorded, so nothing of it can land after
   * its end. Before the workload began there is no cycle to end.
   */
  private endCycle(worker: Worker, why: string, at?: number): void {
    if (worker.ended || this.origin === undefined) return;
    worker.ended = true;
    for (const op of worker.cycle.end(at ?? sinceOrigin(this.origin), why)) this.record(op);
  }
  count(): number {
    return this.workers.length;
  }
  private onReady?: () => void;

  /** Resolves when every worker has connected; rejects when one failed or exited first. */
  ready(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        // A client program that cannot start or answer its init is the user's to fix, in
        // one line as client-check gives it (the worker's error is its stack).
        const broken = this.brokenPrograms[0];
        if (broken) return reject(new UserError(`client ${broken.client}'s program broke at its start: ${broken.why}`));
        // A worker's failure is judged once all it sent has been read: its program's break
        // comes over the channel, and can arrive after its exit, or after a write to it
        // failed because it had closed the channel (a busy runner reads late).
        const ended = (w: Worker) => w.child.exitCode !== null || w.sendFailed === true;
        if (this.workers.some((w) => !w.ready && ended(w) && !w.heardAll)) return;
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
  go(origin: Origin): void {
    this.goAt = Date.now();
    this.origin = origin;
    for (const w of this.workers) this.send(w, { type: 'go', origin: origin.toString() });
  }

  holders(): number[] {
    return this.workers.flatMap((w, i) => (w.cycle.held && w.child.exitCode === null ? [i] : []));
  }
  pid(client: number): number | undefined {
    return this.workers[client]?.child.pid;
  }
  pids(client: number): number[] {
    const w = this.workers[client];
    // And every process of its program's cgroup: a daemon it started that left its
    // process group (setsid) is stopped with it too.
    const inGroup = w?.programPid !== undefined && w.cgroup !== undefined ? cgroupPids(w.cgroup) : [];
    return [w?.programPid, ...inGroup, w?.child.pid].filter((p): p is number => p !== undefined);
  }
  process(client: number): number {
    return this.workers[client]?.process ?? client;
  }
  /**
   * The worker's client program: its group is the shell's (programPid is its negative id);
   * the program is the member the shell started (dash forks it), else the shell itself.
   */
  program(client: number): { pid: number; pgid: number } | undefined {
    const group = this.workers[client]?.programPid;
    if (group === undefined) return undefined;
    const pgid = -group;
    const pid = groupMembers(pgid).find((m) => m.ppid === pgid)?.pid ?? pgid;
    return { pid, pgid };
  }
  /** The largest process number any client used. */
  maxProcess(): number {
    return Math.max(0, ...this.workers.map((w) => w.process));
  }

  /** Asks every worker to finish its cycle; kills those not done within graceMs, or once `signal` aborts. */
  async stop(graceMs: number, signal?: AbortSignal): Promise<void> {
    this.stopping = true;
    for (const w of this.workers) this.send(w, { type: 'stop' });
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
      for (const w of this.workers) this.send(w, { type: 'stop-now' });
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
