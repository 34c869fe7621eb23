/**
 * Reads' sources as a model's reduce tells them (SourceSink), kept compact by op index for a
 * part's search: a read's sources are every blind write it can follow (see SourceSink).
 * Nothing is allocated until a model tells of a read: most models never do.
 */
import type { SourceSink } from '../models/linearizable-model.js';

export class ReadSources {
  /** Per op: where its sources start in `writes`, plus one; 0 for an op never told of. */
  private start: Int32Array | undefined;
  private counts: Int32Array | undefined;
  private writes = new Int32Array(0);
  private length = 0;

  constructor(private readonly ops: number) {}

  readonly add: SourceSink = (read, writes) => {
    if (this.start === undefined || this.counts === undefined) {
      this.start = new Int32Array(this.ops);
      this.counts = new Int32Array(this.ops);
    }
    if (this.length + writes.length > this.writes.length) {
      const bigger = new Int32Array(Math.max(1024, this.writes.length * 2, this.length + writes.length));
      bigger.set(this.writes.subarray(0, this.length));
      this.writes = bigger;
    }
    this.start[read] = this.length + 1;
    this.counts[read] = writes.length;
    for (let k = 0; k < writes.length; k++) this.writes[this.length++] = writes[k];
  };

  /** Whether any read was told of. */
  get any(): boolean {
    return this.start !== undefined;
  }

  /** The `k`th source told of, over all ops (an op index). */
  sourceAt(k: number): number {
    return this.writes[k];
  }

  /** Whether the op was told of (a read whose sources are known, maybe none). */
  known(op: number): boolean {
    return this.start !== undefined && this.start[op] > 0;
  }

  /** Where the op's sources begin in sourceAt's numbering (see known); count(op) of them. */
  first(op: number): number {
    return (this.start as Int32Array)[op] - 1;
  }

  count(op: number): number {
    return (this.counts as Int32Array)[op];
  }
}
