/**
 * Appends operations to history.jsonl as they happen, one JSON line each, written with a
 * synchronous write so that a runner killed at any moment leaves a readable prefix.
 *
 * Workers stream their operations over IPC, so arrival order can differ slightly from
 * the order of their timestamps (a worker paused between stamping and sending arrives
 * late). `finish()` rewrites the file in real-time order, re-indexed, so that the
 * stored history reads like Jepsen's: index order is time order.
 */
import { closeSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import type { Op } from './op.js';
import type { UnindexedOp } from './recorder.js';

export class HistoryWriter {
  private fd: number | undefined;
  readonly ops: Op[] = [];
  /**
   * The first write that failed (a full disk: ENOSPC). Appending then goes on in memory
   * only, since a throw would escape from the IPC handler that records and crash the
   * runner with its containers; the runner checks this and stops the run.
   */
  error?: NodeJS.ErrnoException;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a');
  }

  append(op: UnindexedOp): Op {
    const indexed = { index: this.ops.length, ...op } as Op;
    this.ops.push(indexed);
    if (this.fd !== undefined) {
      try {
        writeSync(this.fd, `${JSON.stringify(indexed)}\n`);
      } catch (err) {
        this.error = err as NodeJS.ErrnoException;
        this.close();
      }
    }
    return indexed;
  }

  private close() {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch (err) {
        this.error ??= err as NodeJS.ErrnoException;
      }
    }
  }

  /**
   * Closes the file and rewrites it in time order; returns the final history. When the
   * rewrite fails (a full disk) the temporary file is removed, the arrival-order file is
   * left as it was, and the error is thrown.
   */
  finish(): Op[] {
    this.close();
    const sorted = sortByTime(this.ops);
    const tmp = `${this.path}.tmp`;
    try {
      writeFileSync(tmp, sorted.map((op) => `${JSON.stringify(op)}\n`).join(''));
      renameSync(tmp, this.path);
    } catch (err) {
      rmSync(tmp, { force: true });
      throw err;
    }
    return sorted;
  }
}

/** Stable sort by time (ties keep arrival order), then indices 0..n-1. */
export function sortByTime(ops: readonly Op[]): Op[] {
  return [...ops].sort((a, b) => a.time - b.time || a.index - b.index).map((op, index) => ({ ...op, index }));
}
