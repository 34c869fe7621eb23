/**
 * A strobing clock (node-clock and client-clock-warp's `strobe`): warped processes flip
 * between `offsetMs` ahead and true time every `periodMs` until stopped, as a clock whose
 * NTP daemon keeps stepping it back and forth would.
 */
import type { ClockChange } from '../cluster/clock-warp.js';
import { sleep } from '../util/monotonic-clock.js';

export interface ClockStrobe {
  /** Ends the flips (the last flip finished); how many there were. */
  stop(): Promise<number>;
}

/** A warped process, and how its warp is changed (here, or on a target's host). */
export interface Strobed {
  pid: number;
  change(pid: number, change: ClockChange): Promise<unknown>;
}

/** Starts flipping the processes `pids()` names (already warped `offsetMs` ahead). */
export function startClockStrobe(pids: () => Strobed[], offsetMs: number, periodMs: number): ClockStrobe {
  let stopping = false;
  const flipping = (async () => {
    let flips = 0;
    let ahead = true; // the start put them ahead
    while (!stopping) {
      await sleep(periodMs);
      if (stopping) break;
      ahead = !ahead;
      for (const p of pids()) await p.change(p.pid, { offsetMs: ahead ? offsetMs : 0 }).catch(() => undefined);
      flips++;
    }
    return flips;
  })();
  return {
    stop: () => {
      stopping = true;
      return flipping;
    },
  };
}
