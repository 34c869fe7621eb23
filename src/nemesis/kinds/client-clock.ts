/**
 * client-clock: a Redlock client's own clock, the one its elapsed-time check reads, steps
 * while the client is stopped at the backend's in-acquire pause point.
 */
import type { Rng } from '../../util/rng.js';
import { missing } from '../applicability.js';
import type { NemesisClients } from '../context.js';
import { faultKind } from '../kind.js';
import { type FaultPlan, type FaultStart, type FaultTiming, planned } from '../nemesis.js';
import { ClientPause, clientWords } from './client-pause.js';

/**
 * client-clock: the client's own clock steps while it is stopped between Redlock's votes
 * and its elapsed-time check, as NTP stepping a wall clock during a GC pause would.
 * backward: the step takes back most of the pause (0.8-1x of it), so the check passes and
 * the client believes in a lock whose keys expired while it was stopped. forward: a short
 * stop and a step past the TTL, so the check refuses a lock that was good (liveness only).
 */
export class ClientClockStep extends ClientPause {
  override readonly kind = 'client-clock';
  constructor(
    clients: NemesisClients,
    opts: FaultTiming,
    private readonly point: string,
    private readonly direction: 'backward' | 'forward',
    waitForClientMs = 2000,
  ) {
    super(clients, opts, waitForClientMs, point);
  }

  override async start(rng: Rng, plan?: FaultPlan): Promise<FaultStart | null> {
    const ttl = this.opts.ttlMs;
    if (this.direction === 'forward') {
      return this.stopInAcquire(
        rng,
        this.point,
        planned(plan, Math.round(ttl * rng.uniform(0.05, 0.1))),
        Math.round(ttl * rng.uniform(1.0, 1.5)),
      );
    }
    // The step takes back most of the pause as it is (a planned one, too).
    const durationMs = planned(plan, Math.round(ttl * rng.uniform(1.2, 2.0)));
    return this.stopInAcquire(rng, this.point, durationMs, -Math.round(durationMs * rng.uniform(0.8, 1.0)));
  }
}

export const clientClock = faultKind({
  name: 'client-clock',
  aims: ['backward', 'forward'],
  what: "step a Redlock client's own clock, the one its elapsed-time check reads, while it is stopped between winning the votes and that check: backward by about the pause, so the pause goes uncounted; forward, so a good lock is refused (the built-in Redlock client's code clock only; client-clock-warp moves any client's real clock)",
  fit: (s, backend) => {
    const point = backend.capabilities?.inAcquirePausePoint;
    if (point === undefined) return missing('inAcquirePausePoint');
    return (ctx) => new ClientClockStep(ctx.clients, ctx.timing, point, s.aim as 'backward' | 'forward');
  },
  words: clientWords,
});
