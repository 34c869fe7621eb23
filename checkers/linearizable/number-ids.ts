/**
 * Numbers to dense ids (0, 1, 2, ... in the order first seen), for the search's interning of
 * states whose keys are numbers. A Map of millions of number keys was most of a kv search's
 * time (its growth, and the collector tracing it); this is open addressing over typed
 * arrays, which the collector never traces and which allocates only when it doubles.
 */
import { buffers } from './buffers.js';

const EMPTY = -1;

export class NumberIds {
  private keys: Float64Array;
  private ids: Int32Array;
  private mask: number;
  size = 0;
  /** To hash a key by its bits when it is not a small integer. */
  private readonly bits = new Float64Array(1);
  private readonly words = new Int32Array(this.bits.buffer);

  constructor(capacity = 1024) {
    let slots = 16;
    while (slots < capacity * 2) slots *= 2;
    this.keys = buffers.float64(slots);
    this.ids = buffers.int32(slots, EMPTY);
    this.mask = slots - 1;
  }

  /** The id of `key`, or -1 if it has none. */
  get(key: number): number {
    const { keys, ids, mask } = this;
    for (let slot = this.hash(key) & mask; ; slot = (slot + 1) & mask) {
      const id = ids[slot];
      if (id === EMPTY || keys[slot] === key) return id;
    }
  }

  /** Gives `key` the id `id` (it must have none). */
  set(key: number, id: number): void {
    if ((this.size + 1) * 2 > this.ids.length) this.grow();
    this.place(key, id);
    this.size++;
  }

  /** Its typed arrays (the search counts their bytes, and hands them back to the pool). */
  arrays(): ArrayBufferView[] {
    return [this.keys, this.ids];
  }

  private place(key: number, id: number): void {
    const { keys, ids, mask } = this;
    let slot = this.hash(key) & mask;
    while (ids[slot] !== EMPTY) slot = (slot + 1) & mask;
    keys[slot] = key;
    ids[slot] = id;
  }

  private grow(): void {
    const { keys, ids } = this;
    this.keys = buffers.float64(keys.length * 2);
    this.ids = buffers.int32(ids.length * 2, EMPTY);
    this.mask = this.ids.length - 1;
    for (let slot = 0; slot < ids.length; slot++) if (ids[slot] !== EMPTY) this.place(keys[slot], ids[slot]);
    buffers.give(keys, ids);
  }

  private hash(key: number): number {
    if ((key | 0) === key) return Math.imul(key, 0x9e3779b1) >>> 0;
    this.bits[0] = key;
    return Math.imul(this.words[0] ^ Math.imul(this.words[1], 0x85ebca6b), 0x9e3779b1) >>> 0;
  }
}
