/**
 * True time from a warped clock's reading: a process whose clock a fault moved (clock-warp)
 * stamps on that clock, and the fault, knowing the warp it put in place, maps a stamp back
 * (runner/restamp.ts applies it to a warped worker's operations).
 */

/** A warped stamp's true time (both absolute CLOCK_MONOTONIC ns, as the runner reads it). */
export type TrueTime = (warpedNs: number, arrivedNs: number) => number;

/** A clock `offsetNs` ahead at `anchorNs`, running at 1 + rate since: w = t + offset + (t − anchor)·rate. */
export function warpedAt(offsetNs: number, rate: number, anchorNs: number): TrueTime {
  return (w, arrived) => Math.min(arrived, anchorNs + (w - anchorNs - offsetNs) / (1 + rate));
}

/**
 * A strobe: the clock is one of `offsetsNs` ahead at any moment, flipping between them. A
 * stamp's true time is the one of those that lies at or before its arrival and nearest it
 * (the offsets are half a lease and more apart; a batch arrives within milliseconds).
 */
export function strobedBetween(offsetsNs: readonly number[]): TrueTime {
  return (w, arrived) => {
    let best: number | undefined;
    for (const offset of offsetsNs) {
      const t = w - offset;
      if (t <= arrived && (best === undefined || t > best)) best = t;
    }
    return best ?? arrived;
  };
}
