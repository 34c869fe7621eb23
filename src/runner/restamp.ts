/**
 * Operations of a worker whose clock a fault moved (client-clock-warp), put back on true
 * time as they arrive. The worker stamps each operation on its own CLOCK_MONOTONIC, which
 * the warp moves like every other clock it reads; the history must keep true time, or the
 * checkers would judge the warp's lie for the lock's (a holder 1.3 s ahead read as
 * overlapping the next holder on one Redis).
 *
 * The fault knows the warp it put in place (trueTime: its offset and rate read back from
 * the process, or a strobe's two offsets), so a stamp maps back exactly; where it could
 * not read it, the batch is stamped at its arrival, its spacing kept. Either way a
 * worker's times keep their order and never go before what it sent last.
 */
import type { UnindexedOp } from '../history/recorder.js';
import type { TrueTime } from '../util/warped-time.js';

/** The most a batch's operations are kept apart when stamped on arrival (a batch spans a few ms). */
export const MAX_SPACING_NS = 20_000_000;

export function restampOnArrival(
  ops: UnindexedOp[],
  arrivedNs: number,
  after: number,
  mapped?: { trueTime: TrueTime; originNs: number },
): void {
  const last = ops.at(-1)?.time;
  if (last === undefined) return;
  let floor = after;
  for (const op of ops) {
    const t = mapped
      ? mapped.trueTime(op.time + mapped.originNs, arrivedNs + mapped.originNs) - mapped.originNs
      : arrivedNs - Math.min(Math.max(last - op.time, 0), MAX_SPACING_NS);
    op.time = Math.max(floor, Math.round(t));
    floor = op.time;
  }
}
