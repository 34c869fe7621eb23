/**
 * client-kill: a client crashes (SIGKILL of its worker and its program, the library with
 * it) at a named code point (`at=before-release`, a point its program announces) or while
 * it holds the lock. What it had in flight ends unknown on the record, its grant is
 * abandoned (its session dies with the process, or its lease is left to lapse), and a fresh
 * client takes its place with a new process number, as Jepsen replaces a crashed client.
 * A lock that needs its holder to release it, or a library that leaves state behind for the
 * next instance, shows it here.
 */
import { sleep } from '../../util/monotonic-clock.js';
import type { Rng } from '../../util/rng.js';
import { type ClientFaultTarget, stoppedProcesses } from '../context.js';
import { faultKind } from '../kind.js';
import type { FaultStart, FaultTiming, Nemesis } from '../nemesis.js';
import { clientWords } from './client-pause.js';

export class ClientKill implements Nemesis {
  readonly kind = 'client-kill';

  constructor(
    private readonly clients: ClientFaultTarget,
    private readonly timing: FaultTiming,
    /** Given: kill the first client to reach this code point; absent: a client that holds the lock. */
    private readonly atPoint?: string,
  ) {}

  async start(rng: Rng): Promise<FaultStart | null> {
    const pickAt = rng.next();
    if (this.atPoint !== undefined) {
      const caught = await this.clients.catchAtPoint(this.atPoint, Math.max(4000, 2 * this.timing.ttlMs));
      if (!caught) return null;
      const value = this.record(caught.client, caught.pids, this.atPoint);
      // Killed where it stands, stopped at the point: it never goes on from there.
      if (!this.clients.crash(caught.client, `the nemesis killed the client at ${this.atPoint}`)) {
        caught.resume();
        return null;
      }
      return { value, durationMs: 1 };
    }
    let holders = this.clients.holders();
    for (let waited = 0; holders.length === 0 && waited < 2000; waited += 5) {
      await sleep(5);
      holders = this.clients.holders();
    }
    if (holders.length === 0) return null;
    const client = holders[Math.floor(pickAt * holders.length)] as number;
    const value = this.record(client, this.clients.pids(client));
    if (!this.clients.crash(client, 'the nemesis killed the client while it held the lock')) return null;
    return { value, durationMs: 1 };
  }

  private record(client: number, pids: readonly number[], at?: string): Record<string, unknown> {
    return {
      client,
      process: this.clients.process(client),
      ...stoppedProcesses(pids, this.clients.pid(client)),
      ...(at === undefined ? {} : { at }),
    };
  }

  async stop(): Promise<unknown> {
    return {};
  }

  async healAll(): Promise<void> {}
}

export const clientKill = faultKind({
  name: 'client-kill',
  targets: ['holder'],
  moreTargets: {
    form: 'at=<point>',
    test: (t) => /^at=[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(t),
  },
  what: 'SIGKILL a client (its worker and its program) that holds the lock, or the first at a code point (at=<point>); a fresh client takes its place with a new process number',
  fit: (s) => (ctx) =>
    new ClientKill(ctx.clients, ctx.timing, s.target.startsWith('at=') ? s.target.slice('at='.length) : undefined),
  words: clientWords,
});
