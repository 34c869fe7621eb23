/**
 * How a client records what it observed. `perform` stamps the invocation, runs the
 * request, and stamps the completion: `ok` with the result, `fail` when the request
 * certainly had no effect, `info` when the outcome is unknown (a timeout, a lost
 * connection, any error not known to be definite). After an `info` the recorder takes a
 * fresh process number (current + stride), so a process never issues again after `info`.
 */

import { errorMessage } from '../util/errors.js';
import type { Origin } from '../util/monotonic-clock.js';
import { sinceOrigin } from '../util/monotonic-clock.js';
import { DefiniteFailure } from './definite-failure.js';
import type { Op, OpType } from './op.js';

/** What a request returns to the recorder: the completion's type and payload. */
export type Observed = { type: 'ok'; value?: unknown } | { type: 'fail'; error: string; value?: unknown };

export type UnindexedOp = Omit<Op, 'index'>;

export class Recorder {
  constructor(
    public process: number,
    /** Added to the process number after an `info`: the client count, as in Jepsen. */
    private readonly stride: number,
    private readonly origin: Origin,
    private readonly sink: (op: UnindexedOp) => void,
  ) {}

  private emit(
    type: OpType,
    f: string,
    key: string | undefined,
    value: unknown,
    error?: string,
    process = this.process,
  ) {
    const op: UnindexedOp = { type, f, process, time: sinceOrigin(this.origin) };
    if (key !== undefined) op.key = key;
    if (value !== undefined) op.value = value;
    if (error !== undefined) op.error = error;
    this.sink(op);
  }

  async perform(
    f: string,
    key: string | undefined,
    value: unknown,
    request: () => Promise<Observed>,
  ): Promise<Observed | { type: 'info'; error: string }> {
    const process = this.process;
    this.emit('invoke', f, key, value, undefined, process);
    try {
      const outcome = await request();
      // Jepsen's convention: a completion carries the value (a read's result, or the argument).
      const result = outcome.value !== undefined ? outcome.value : value;
      this.emit(outcome.type, f, key, result, outcome.type === 'fail' ? outcome.error : undefined, process);
      return outcome;
    } catch (err) {
      const error = errorMessage(err);
      if (err instanceof DefiniteFailure) {
        this.emit('fail', f, key, value, error, process);
        return { type: 'fail', error };
      }
      this.emit('info', f, key, value, error, process);
      this.process += this.stride;
      return { type: 'info', error };
    }
  }
}
