/** Builds small histories for checker tests: h.invoke(p, f, ...) / h.ok(p, ...) with rising times. */
import type { Op, OpType, Process } from '../../src/history/op.js';

export class H {
  readonly ops: Op[] = [];
  private t = 0;
  private add(type: OpType, process: Process, f: string, key?: string, value?: unknown, error?: string): this {
    this.t += 1_000_000;
    const op: Op = { index: this.ops.length, type, f, process, time: this.t };
    if (key !== undefined) op.key = key;
    if (value !== undefined) op.value = value;
    if (error !== undefined) op.error = error;
    this.ops.push(op);
    return this;
  }
  invoke(p: Process, f: string, key?: string, value?: unknown) {
    return this.add('invoke', p, f, key, value);
  }
  ok(p: Process, f: string, key?: string, value?: unknown) {
    return this.add('ok', p, f, key, value);
  }
  fail(p: Process, f: string, key?: string, value?: unknown, error = 'failed') {
    return this.add('fail', p, f, key, value, error);
  }
  info(p: Process, f: string, key?: string, value?: unknown, error = 'timeout') {
    return this.add('info', p, f, key, value, error);
  }
  /** acquire invoke + ok with an optional token. */
  acquire(p: number, token?: number, lock = 'L') {
    return this.invoke(p, 'acquire', lock).ok(p, 'acquire', lock, token === undefined ? {} : { token });
  }
  release(p: number, lock = 'L') {
    return this.invoke(p, 'release', lock).ok(p, 'release', lock);
  }
}
