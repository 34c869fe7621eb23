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
      if (list.includes(buffer)) continue;
      list.push(buffer);
      this.kept += size;
    }
  }
}

export const buffers = new BufferPool();
