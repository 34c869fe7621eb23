/**
 * The search's typed arrays, on buffers kept for the next search in this thread (a module
 * instance per thread: each worker has its own).
 *
 * Why: a part's search allocates tens of typed arrays, tens of megabytes at 100k operations,
 * and doubles some as it goes. V8 counts that memory as "external", and every 64 MiB or so
 * of it starts a full collection of the whole heap ("external memory pressure"), however
 * little of the heap is garbage. Checking a million-operation history in one thread, with
 * the history itself in the heap, that meant a full collection of 600-900 MB every second or
 * so: 8 of 21 seconds. Buffers handed back and taken again are memory V8 has counted already.
 *
 * Buffers are powers of two in bytes; a view of exactly the asked length is handed out
 * (lengths keep their meaning: capacities, masks), zero-filled or filled as asked. At most
 * RETAINED_BYTES are kept; beyond that a given-back buffer is left to the collector.
 */

const RETAINED_BYTES = 256 * 2 ** 20;

/** What reserve() puts in the pool, in MiB: about what a 100k-operation kv part grows its memo to. */
const RESERVED_MIB = [64, 32, 32, 16, 16, 8, 8, 8, 4, 4, 4, 4];

class BufferPool {
  private readonly free = new Map<number, ArrayBuffer[]>();
  private kept = 0;
  /** Whether the last buffer taken was used before (a new one is zeros already). */
  private reused = false;

  private take(bytes: number): ArrayBuffer {
    let size = 256;
    while (size < bytes) size *= 2;
    const buffer = this.free.get(size)?.pop();
    this.reused = buffer !== undefined;
    if (buffer === undefined) return new ArrayBuffer(size);
    this.kept -= size;
    return buffer;
  }

  int32(length: number, fill = 0): Int32Array<ArrayBuffer> {
    const a = new Int32Array(this.take(length * 4), 0, length);
    return this.reused || fill !== 0 ? a.fill(fill) : a;
  }

  uint8(length: number): Uint8Array<ArrayBuffer> {
    const a = new Uint8Array(this.take(length), 0, length);
    return this.reused ? a.fill(0) : a;
  }

  float64(length: number): Float64Array<ArrayBuffer> {
    const a = new Float64Array(this.take(length * 8), 0, length);
    return this.reused ? a.fill(0) : a;
  }

  /**
   * Fills the pool, ahead of need, with buffers of the sizes a large search grows its memo to.
   * Each time external memory grows by tens of megabytes V8 starts a full collection, and a
   * search growing its memo while the heap holds a large history and its parts paid for one
   * of 550-800 MB, up to 0.7 s, on each part that grew further than the parts before it (a
   * million-operation kv history in one thread: three such collections, 1.6 s of 10). So a
   * large check reserves while the heap is still small: in a worker as it starts, and before
   * a large history is prepared (the history itself is in the heap by then; its parts not
   * yet). The memory costs nothing until used: a new buffer's pages are not touched.
   */
  reserve(): void {
    for (const mib of RESERVED_MIB) {
      const size = mib * 2 ** 20;
      const have = this.free.get(size)?.length ?? 0;
      const want = RESERVED_MIB.filter((m) => m === mib).length;
      if (have >= want || this.kept + size > RETAINED_BYTES) continue;
      this.give(new Uint8Array(size));
    }
  }

  /** The bytes the pool holds now. */
  get keptBytes(): number {
    return this.kept;
  }

  /** Hands arrays back; they must not be used after. */
  give(...arrays: ArrayBufferView[]): void {
    for (const a of arrays) {
      const buffer = a.buffer as ArrayBuffer;
      const size = buffer.byteLength;
      // Only ours: a power of two of at least 256 bytes, not already kept.
      if (size < 256 || (size & (size - 1)) !== 0 || this.kept + size > RETAINED_BYTES) continue;
      let list = this.free.get(size);
      if (!list) {
        list = [];
        this.free.set(size, list);
      }
      // A scan, not a set of held buffers: a size's list stays short (a search's arrays of
      // that size), and a set's hashing of each buffer cost a small check a tenth of its time.
      if (list.includes(buffer)) continue;
      list.push(buffer);
      this.kept += size;
    }
  }
}

export const buffers = new BufferPool();
