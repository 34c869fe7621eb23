/**
 * The one rule every reader of a history holds it to (check, report, a run read back):
 * no operation nests more than MAX_DEPTH levels. JSON.parse (and the EDN reader, up to
 * its stack) reads far deeper, but every recursive walk after it (a model's canonical
 * value, the report's page data) overflowed the stack: `check` ended in a RangeError and
 * a stack trace where `report` refused the same file in one line.
 */
import { MAX_DEPTH, nestedDeeperThan } from '../util/depth.js';
import { HistoryError } from './errors.js';
import type { Op } from './op.js';

/** A HistoryError naming `source`'s first operation that nests past MAX_DEPTH levels, if one does. */
export function refuseDeepOps(ops: readonly Op[], source: string): void {
  const deep = ops.find((op) => nestedDeeperThan(op, MAX_DEPTH));
  if (deep) {
    throw new HistoryError(
      `${source}: op #${deep.index} nests more than ${MAX_DEPTH} levels deep: not a history of a lock or a store (their values are flat sets and grants); remove that operation or give another file`,
    );
  }
}
