/**
 * Values as small whole numbers, two values' ids equal iff their valueKeys are (values.ts),
 * for a model's pass over one part (reduceByObservation, impossibleObservation).
 *
 * Why: valueKey is a string of the whole value, and lock-set's values are sets of up to
 * dozens of numbers. Keyed by their strings, a pass over a million-operation register made
 * hundreds of megabytes of strings, kept until the pass ended, so moved out of the young
 * generation and left for a full collection: the largest part of a report's peak memory.
 * An array of finite numbers is found here by a hash of its elements and compared element
 * by element with the first array of its value seen, which the history holds already; any
 * other value by its valueKey.
 */
import type { PartOp } from './linearizable-model.js';
import { finiteNumbers, valueKey } from './values.js';

export class ValueIds {
  /** Ids of the values that are not arrays of finite numbers, by valueKey. */
  private readonly byKey = new Map<string | number, number>();
  /** Per id of an array of finite numbers: the first array of that value seen. */
  private readonly arrays: (readonly number[] | undefined)[] = [];
  /** Open addressing by hash: id + 1, or 0 for a free slot. */
  private table = new Int32Array(1024);
  private inTable = 0;
  private count = 0;

  /** The value's id, made if it has none yet. */
  id(v: unknown): number {
    if (!Array.isArray(v) || !finiteNumbers(v)) {
      const key = valueKey(v);
      const known = this.byKey.get(key);
      if (known !== undefined) return known;
      this.byKey.set(key, this.count);
      this.arrays.push(undefined);
      return this.count++;
    }
    const mask = this.table.length - 1;
    let slot = hashNumbers(v) & mask;
    for (let at = this.table[slot]; at !== 0; at = this.table[slot]) {
      if (sameNumbers(this.arrays[at - 1] as readonly number[], v)) return at - 1;
      slot = (slot + 1) & mask;
    }
    const id = this.count++;
    this.arrays.push(v);
    this.table[slot] = id + 1;
    if (++this.inTable * 2 > this.table.length) this.grow();
    return id;
  }

  private grow(): void {
    const table = new Int32Array(this.table.length * 2);
    const mask = table.length - 1;
    for (const at of this.table) {
      if (at === 0) continue;
      let slot = hashNumbers(this.arrays[at - 1] as readonly number[]) & mask;
      while (table[slot] !== 0) slot = (slot + 1) & mask;
      table[slot] = at;
    }
    this.table = table;
  }
}

/**
 * A hash of finite numbers, equal for arrays valueKey makes equal: their elements equal
 * by ===, so -0 and 0 alike (x | 0 and the part below it are 0 for both).
 */
function hashNumbers(a: readonly number[]): number {
  let h = Math.imul(0x811c9dc5 ^ a.length, 0x01000193);
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const whole = x | 0;
    h = Math.imul(h ^ whole, 0x01000193);
    if (x !== whole) h = Math.imul(h ^ (((x - whole) * 0x100000000) | 0) ^ ((x / 0x100000000) | 0), 0x01000193);
  }
  return h >>> 0;
}

/** Whether two arrays of finite numbers have the same valueKey: their elements equal by ===. */
function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** What an ok read observes (values.ts: observedByRead), as its value's id in `ids`. */
export const observedIdByRead =
  (ids: ValueIds) =>
  (op: PartOp): number | undefined =>
    op.input.f === 'read' && op.output.known ? ids.id(op.output.value) : undefined;
