/**
 * client-kill: a client crashes (SIGKILL of its worker and its program, the library with
 * it) at a named code point (`at=before-release`, a point its program announces) or while
 * it holds the lock (the next to begin its hold: client-pause.ts's in-hold). What it had in flight ends unknown on the record, its grant is
 * abandoned (its session dies with the process, or its lease is left to lapse), and a fresh
 * client takes its place with a new process number, as Jepsen replaces a crashed client.
 * A lock that needs its holder to release it, or a library that leaves state behind for the
 * next instance, shows it here.
 */
import type { Rng } from '../../util/rng.js';
import { type NemesisClients, stoppedProcesses } from '../context.js';
import { faultKind } from '../kind.js';
import type { FaultStart, FaultTiming, Nemesis } from '../nemesis.js';
import { atClient, atPointWords, HOLDER_POINT } from './client-pause.js';

export class ClientKill implements Nemesis {
  readonly kind = 'client-kill';

  constructor(
    private readonly clients: NemesisClients,
    private readonly timing: FaultTiming,
    /** Given: kill the first client to reach this code point; absent: a client that holds the lock. */
    private readonly atPoint?: string,
  ) {}

  async start(rng: Rng): Promise<FaultStart | null> {
    rng.next(); // the draw that once picked among the holders: the schedule's later numbers stay as they were
    // A holder is caught as its hold begins: one picked from who held a moment before may
    // have sent its release by the time the signal lands (client-pause.ts).
    const point = this.atPoint ?? HOLDER_POINT;
    const caught = await this.clients.catchAtPoint(point, Math.max(4000, 2 * this.timing.ttlMs));
    if (!caught) return null;
    const value = this.record(caught.client, caught.pids, point);
    const why =
      this.atPoint === undefined
        ? 'the nemesis killed the client while it held the lock'
        : `the nemesis killed the client at ${point}`;
    // Killed where it stands, stopped at the point: it never goes on from there.
    if (!this.clients.crash(caught.client, why)) {
      caught.resume();
      return null;
    }
    return { value, durationMs: 1 };
  }

  private record(client: number, pids: readonly number[], at: string): Record<string, unknown> {
    return { client, process: this.clients.process(client), ...stoppedProcesses(pids, this.clients.pid(client)), at };
  }

  async stop(): Promise<unknown> {
    return {};
  }

  async healAll(): Promise<void> {}
}

export const clientKill = faultKind({
  name: 'client-kill',
  aims: ['holder'],
  moreAims: {
    form: 'at=<point>',
    test: (t) => /^at=[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(t),
  },
  what: 'SIGKILL a client (its worker and its program) that holds the lock, the next to begin its hold (in-hold), or the first at a code point (at=<point>); a fresh client takes its place with a new process number',
  fit: (s) => (ctx) =>
    new ClientKill(ctx.clients, ctx.timing, s.aim.startsWith('at=') ? s.aim.slice('at='.length) : undefined),
  aimsAt: atClient,
  words: atPointWords,
});
