/**
 * wire: one kind of request of one client, caught on its way to the lock server (the
 * per-client proxy splits what a client sends into named requests: wire-requests.ts), at the
 * moment it is sent. Bugs in lock libraries sit at one point of their code: between an
 * ownership check and the DEL, between the grant (SET NX) and the token (INCR). A client
 * paused at a random moment almost never lands there; a request held on the wire lands
 * there every time, in any language, with the library unchanged.
 *
 *   pause  the client (its worker and its program, SIGSTOP) is stopped as it sends the
 *          request, and the request waits with it, until another client holds the lock or
 *          the length is spent; then the request goes on, and the client resumes as its
 *          answer arrives: a GC pause between the library's last step and this request,
 *          for exactly as long as it takes the lock to change hands. Its own timeouts do
 *          not run out (it was stopped), as after a real pause;
 *   hold   the request alone waits, the client running (a slow network: the library's
 *          own timeouts may give up first);
 *   stop   the request goes, and the client is stopped right after it, until another
 *          client holds the lock or the length is spent;
 *   drop   the request never reaches the server: the client's connection is closed.
 *
 * The hold ends on the state that matters (another holder), not on a drawn moment, so the
 * story plays out whatever the machine's speed; the drawn length (1.2-2x the TTL, or
 * --pause-ttl) is its upper bound.
 */
import { sleep } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { type NemesisClients, signalAll, stoppedProcesses, untilHandedOver } from '../context.js';
import { faultKind } from '../kind.js';
import { type FaultPlan, type FaultStart, type FaultTiming, type Nemesis, planned } from '../nemesis.js';
import type { ProxyRoute, WireAction } from '../proxy.js';

export const WIRE_MODES = ['pause', 'hold', 'stop', 'drop'] as const;
export type WireMode = (typeof WIRE_MODES)[number];

/** A wire point's name in coverage and in fault records: `wire:DEL`. */
export const wirePoint = (request: string) => `wire:${request}`;

/** Hold lengths as multiples of the TTL: long enough for the lease to lapse and the lock to change hands. */
const HOLD_TTL_FACTOR = { min: 1.2, max: 2.0 };

/** How long a paused client waits, once its request went on, for the answer before it is resumed anyway. */
const ANSWER_WAIT_MS = 200;

interface Caught {
  /** The processes stopped with the request (pause). */
  pids?: number[];
  client: number;
  process: number;
  /** When the request was caught (Date.now()). */
  at: number;
  /** Ends the hold or the stop. */
  release: (why: string) => void;
  /** Why it ended, once it has. */
  ended?: string;
  endedAt?: number;
}

export class WireFault implements Nemesis {
  readonly kind = 'wire';
  private caught?: Caught;
  /** Resumes the client a pause stopped (at the heal, whatever else happened). */
  private resumeNow?: () => void;

  constructor(
    private readonly routes: ProxyRoute[],
    private readonly clients: NemesisClients,
    private readonly timing: FaultTiming,
    /** The request's name, as the splitter names it (matched without regard to case). */
    private readonly request: string,
    private readonly mode: WireMode,
  ) {}

  private get lockRoutes() {
    return this.routes.filter((r) => r.node !== 'store');
  }

  async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const drawn = rng.uniform(HOLD_TTL_FACTOR.min, HOLD_TTL_FACTOR.max);
    const durationMs = planned(plan, Math.round(this.timing.ttlMs * (this.timing.pauseTtl ?? drawn)));
    const wanted = this.request.toLowerCase();
    let onCaught: (c: Caught) => void = () => {};
    const caught = new Promise<Caught>((resolve) => {
      onCaught = resolve;
    });
    let armed = true;
    const disarm = () => {
      armed = false;
      for (const r of this.lockRoutes) r.proxy.trap = undefined;
    };
    for (const route of this.lockRoutes) {
      route.proxy.trap = (name): WireAction | undefined => {
        if (!armed || name.toLowerCase() !== wanted) return undefined;
        disarm();
        const c = this.catch(route.client, durationMs);
        onCaught(c.caught);
        return c.action;
      };
    }
    // A request a client makes every cycle comes within a few cycles; one it never makes
    // (a name the library does not send) finds nothing to fault, as a point never reached.
    const waitMs = Math.max(4000, 2 * this.timing.ttlMs);
    const got = await Promise.race([caught, sleep(waitMs).then(() => undefined)]);
    disarm();
    if (!got) return null;
    this.caught = got;
    const value: Record<string, unknown> = {
      client: got.client,
      process: got.process,
      at: wirePoint(this.request),
      mode: this.mode,
    };
    Object.assign(value, stoppedProcesses(got.pids ?? [], this.clients.pid(got.client)), { ms: durationMs });
    return { value, durationMs };
  }

  /** What to do with the request one client just sent, and the record of it. */
  private catch(client: number, maxMs: number): { caught: Caught; action: WireAction } {
    const c: Caught = { client, process: this.clients.process(client), at: Date.now(), release: () => {} };
    if (this.mode === 'drop') {
      c.ended = 'dropped';
      c.endedAt = c.at;
      return { caught: c, action: { drop: true } };
    }
    const held = new Promise<void>((resolve) => {
      c.release = (why) => {
        if (c.ended) return;
        c.ended = why;
        c.endedAt = Date.now();
        resolve();
      };
    });
    // Until the lock has changed hands, or the length is spent.
    void untilHandedOver(this.clients, client, c.at + maxMs, () => c.ended !== undefined).then((why) => {
      if (why !== undefined) c.release(why);
    });
    if (this.mode === 'hold') return { caught: c, action: { hold: held } };
    if (this.mode === 'pause') {
      const stoppedNow = signalAll(this.clients.pids(client), 'SIGSTOP');
      c.pids = stoppedNow;
      let resumed = false;
      const resume = () => {
        if (resumed) return;
        resumed = true;
        signalAll(stoppedNow, 'SIGCONT');
      };
      // Resumed as the answer reaches it; at the latest a moment after the request went.
      void held.then(() => sleep(ANSWER_WAIT_MS).then(resume));
      this.resumeNow = resume;
      return { caught: c, action: { hold: held, answered: resume } };
    }
    let stopped: number[] = [];
    void held.then(() => signalAll(stopped, 'SIGCONT'));
    return { caught: c, action: { after: () => (stopped = signalAll(this.clients.pids(client), 'SIGSTOP')) } };
  }

  async stop(): Promise<unknown> {
    const c = this.caught;
    if (!c) return null;
    c.release('the fault ended');
    this.caught = undefined;
    return { client: c.client, heldMs: (c.endedAt ?? Date.now()) - c.at, until: c.ended };
  }

  async healAll(): Promise<void> {
    for (const r of this.lockRoutes) r.proxy.trap = undefined;
    this.caught?.release('the run healed its faults');
    this.caught = undefined;
    this.resumeNow?.();
  }
}

export const wire = faultKind({
  name: 'wire',
  aims: ['DEL', 'EVALSHA', 'EVAL', 'INCR', 'SET'],
  moreAims: {
    form: '<request>',
    // A request's name as the splitter gives it: a Redis command, a PostgreSQL function, a ZooKeeper op.
    test: (t) => /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(t),
  },
  modes: WIRE_MODES,
  what: "catch one client's request of this name on its way to the lock server (a Redis command, a PostgreSQL function, a ZooKeeper op): pause the client there until another client holds the lock, hold the request alone, stop the client right after it, or drop it",
  usesProxies: () => true,
  aimsAt: (s) => ({ point: `wire:${s.aim}`, ...(s.mode ? { mode: s.mode } : {}) }),
  fit: (s) => (ctx) => new WireFault(ctx.routes, ctx.clients, ctx.timing, s.aim, (s.mode ?? 'pause') as WireMode),
  words: (v) => ({
    whom: typeof v.process === 'number' ? `process ${v.process}` : undefined,
    how: [typeof v.at === 'string' ? `${v.mode ?? 'pause'} at ${v.at.replace(/^wire:/, '')}` : ''].filter(Boolean),
  }),
});
