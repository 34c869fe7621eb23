/**
 * Reads' sources as a model's reduce tells them (SourceSink), kept compact by op index for a
 * part's search: a read's sources are every blind write it can follow (see SourceSink).
 */
import type { SourceSink } from '../models/model.js';

export class ReadSources {
  /** Per op: where its sources start in `writes`; -1 for an op never told of. */
  private readonly start: Int32Array;
  private readonly count: Int32Array;
  private writes = new Int32Array(1024);
  private length = 0;

  constructor(ops: number) {
    this.start = new Int32Array(ops).fill(-1);
    this.count = new Int32Array(ops);
  }

  readonly add: SourceSink = (read, writes) => {
    if (this.length + writes.length > this.writes.length) {
      const bigger = new Int32Array(Math.max(this.writes.length * 2, this.length + writes.length));
      bigger.set(this.writes.subarray(0, this.length));
      this.writes = bigger;
    }
    this.start[read] = this.length;
    this.count[read] = writes.length;
    for (const w of writes) this.writes[this.length++] = w;
  };

  /** Whether the op was told of (a read whose sources are known, maybe none). */
  known(op: number): boolean {
    return this.start[op] >= 0;
  }

  /** Calls `each` with every source of the op (an op index). */
  forEach(op: number, each: (write: number) => void): void {
    const start = this.start[op];
    for (let i = start; i >= 0 && i < start + this.count[op]; i++) each(this.writes[i]);
  }
}
