/**
 * Appends operations to history.jsonl as they happen, one JSON line each, written with a
 * synchronous write so that a runner killed at any moment leaves a readable prefix.
 *
 * Workers stream their operations over IPC, so arrival order can differ slightly from
 * the order of their timestamps (a worker paused between stamping and sending arrives
 * late). `finish()` rewrites the file in real-time order, re-indexed, so that the
 * stored history reads like Jepsen's: index order is time order.
 */
import { closeSync, openSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import type { Op } from './op.js';
import type { UnindexedOp } from './recorder.js';

export class HistoryWriter {
  private fd: number | undefined;
  readonly ops: Op[] = [];

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }

  append(op: UnindexedOp): Op {
    const indexed = { index: this.ops.length, ...op } as Op;
    this.ops.push(indexed);
    if (this.fd !== undefined) writeSync(this.fd, `${JSON.stringify(indexed)}\n`);
    return indexed;
  }

  /** Closes the file and rewrites it in time order; returns the final history. */
  finish(): Op[] {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    const sorted = sortByTime(this.ops);
    writeFileSync(`${this.path}.tmp`, sorted.map((op) => `${JSON.stringify(op)}\n`).join(''));
    renameSync(`${this.path}.tmp`, this.path);
    return sorted;
  }
}

/** Stable sort by time (ties keep arrival order), then indices 0..n-1. */
export function sortByTime(ops: readonly Op[]): Op[] {
  return [...ops].sort((a, b) => a.time - b.time || a.index - b.index).map((op, index) => ({ ...op, index }));
}
