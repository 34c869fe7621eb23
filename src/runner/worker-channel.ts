/**
 * The messages between the runner and its client workers: what it asks of them (sent so
 * that a closed channel is no failure when the run stops), and what their answers tell it
 * (their ops on the record, their reports: errors, stalls, broken programs, code points).
 */
import type { UnindexedOp } from '../history/recorder.js';
import { type Origin, sinceOrigin } from '../util/monotonic-clock.js';
import type { TrueTime } from '../util/warped-time.js';
import type { FromWorker, ToWorker } from '../worker/protocol.js';
import type { ClientWorker } from './client-worker.js';
import type { Stall } from './machine-stalls.js';
import type { BrokenProgram } from './program-failures.js';
import { restampOnArrival } from './restamp.js';

/** What the channel needs of the pool whose workers it talks to. */
export interface ChannelHost {
  /** Records an op a worker sent. */
  record(op: UnindexedOp): void;
  /** The workload's origin, once it began. */
  origin(): Origin | undefined;
  /** The pool is ending its workers: a message that cannot be written then is no failure. */
  stopping(): boolean;
  /** The client slot the worker fills (-1 for one replaced). */
  clientOf(worker: ClientWorker): number;
  /** A worker said it is ready, or reported an error: whoever waits for them all looks again. */
  readinessChanged(): void;
}

/** Hands the first worker that asks at an armed point to whoever armed it. */
export type PointCatcher = (worker: ClientWorker, seq: number) => void;

export class WorkerChannel {
  /** Errors workers reported (a bug, not a fault): they make the run's verdict an error. */
  readonly errors: string[] = [];
  /** Client programs that announced more distinct code points than they may (the rest not counted): which, and the cap. */
  readonly pointsCapped: { client: number; cap: number }[] = [];
  /** Client programs that stopped speaking the protocol (crashed, hung, garbage): which, and why in one line. */
  readonly brokenPrograms: BrokenProgram[] = [];
  /** Times a worker did not run (the nemesis's pauses among them), for runner/machine-stalls.ts. */
  readonly stalls: Stall[] = [];
  /** The catchers of armed code points: the first worker to ask is handed to it. */
  private readonly pointCatchers = new Map<string, PointCatcher>();

  constructor(private readonly host: ChannelHost) {}

  /** Hears what the worker of client slot `client` sends. */
  listen(worker: ClientWorker, client: number): void {
    worker.child.on('message', (m: FromWorker) => this.onMessage(worker, m));
    worker.child.on('error', (err) => this.errors.push(`worker ${client}: ${err.message}`));
  }

  send(worker: ClientWorker, message: ToWorker): void {
    if (!worker.child.connected) return;
    worker.child.send(message, (err) => {
      // A worker that ended between the check and the write (told to stop, it may close its
      // channel at once: EPIPE) is no worker failure; any other failed send is.
      if (!err) return;
      worker.sendFailed = true;
      if (!this.host.stopping() && !worker.replaced) this.errors.push(`worker ${worker.process}: ${err.message}`);
    });
  }

  /** The first worker to ask at `where` goes to `catcher` (until disarmed); any other goes on. */
  arm(where: string, catcher: PointCatcher): void {
    this.pointCatchers.set(where, catcher);
  }
  disarm(where: string): void {
    this.pointCatchers.delete(where);
  }

  /**
   * Workers whose clock a fault moved (client-clock-warp): they stamp their operations on
   * that clock, so the runner stamps them on its own as they arrive (restamp.ts).
   */
  private readonly clockWarped = new Map<ClientWorker, TrueTime | undefined>();
  setClockWarped(worker: ClientWorker, warped: boolean, trueTime?: TrueTime): void {
    if (warped) this.clockWarped.set(worker, trueTime);
    else this.clockWarped.delete(worker);
  }

  private onMessage(worker: ClientWorker, m: FromWorker) {
    if (m.type === 'ops') {
      // Its cycle ended by the harness: what it sends after is not recorded.
      if (worker.ended) return;
      const origin = this.host.origin();
      if (this.clockWarped.has(worker) && origin !== undefined) {
        const trueTime = this.clockWarped.get(worker);
        const mapped = trueTime ? { trueTime, originNs: Number(origin) } : undefined;
        restampOnArrival(m.ops, sinceOrigin(origin), worker.lastSeen ?? 0, mapped);
      }
      for (const op of m.ops) {
        worker.process = op.process as number;
        worker.cycle.follow(op);
        worker.lastSeen = Math.max(worker.lastSeen ?? 0, op.time);
        this.host.record(op);
      }
    } else if (m.type === 'ready') {
      worker.ready = true;
      // A replacement joins the workload already going.
      const origin = this.host.origin();
      if (worker.replacement && origin !== undefined) this.send(worker, { type: 'go', origin: origin.toString() });
      this.host.readinessChanged();
    } else if (m.type === 'points') {
      worker.reached = m.reached;
    } else if (m.type === 'at-point') {
      // Asked at an armed point: the first client there is caught, any other goes on.
      const catcher = this.pointCatchers.get(m.where);
      if (catcher) catcher(worker, m.seq);
      else this.send(worker, { type: 'point-go', seq: m.seq });
    } else if (m.type === 'stall') {
      // A warped clock's jump reads as a stall to the worker: not a stall of this machine.
      if (!this.clockWarped.has(worker)) this.stalls.push({ process: worker.process, fromNs: m.fromNs, toNs: m.toNs });
    } else if (m.type === 'program-started') {
      worker.programPid = m.pid;
    } else if (m.type === 'points-capped') {
      this.pointsCapped.push({ client: this.host.clientOf(worker), cap: m.cap });
    } else if (m.type === 'program-broken') {
      // When, for telling a break under a fault (the library's) from one with none near.
      const broken: BrokenProgram = { client: this.host.clientOf(worker), why: m.why };
      const origin = this.host.origin();
      if (origin !== undefined) broken.atNs = sinceOrigin(origin);
      if (worker.lastSeen !== undefined) broken.sinceNs = worker.lastSeen;
      this.brokenPrograms.push(broken);
    } else if (m.type === 'error') {
      this.errors.push(`worker ${this.host.clientOf(worker)}: ${m.message}`);
      this.host.readinessChanged();
    }
  }
}
