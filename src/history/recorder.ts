/**
 * How a client records what it observed. `perform` stamps the invocation, runs the
 * request, and stamps the completion: `ok` with the result, `fail` when the request
 * certainly had no effect, `info` when the outcome is unknown (a timeout, a lost
 * connection, any error not known to be definite). After an `info` the recorder takes a
 * fresh process number (current + stride), so a process never issues again after `info`.
 *
 * `event` records what a client reports between its requests (a library's auto-extension):
 * an invocation and its completion at once, both stamped when it was reported; while a
 * request is in flight, right after that request's completion (a process has one operation
 * in flight at a time), and not at all if that request ends `info` (the process is over).
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
  /** The request in flight has begun and not yet ended. */
  private inFlight = false;
  /** Events reported while a request was in flight: recorded after its completion. */
  private held: { f: string; key: string | undefined; outcome: Observed; time: number }[] = [];

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
    time = sinceOrigin(this.origin),
  ) {
    const op: UnindexedOp = { type, f, process, time };
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
    this.inFlight = true;
    try {
      const outcome = await request();
      // Jepsen's convention: a completion carries the value (a read's result, or the argument).
      const result = outcome.value !== undefined ? outcome.value : value;
      this.emit(outcome.type, f, key, result, outcome.type === 'fail' ? outcome.error : undefined, process);
      this.endFlight(true);
      return outcome;
    } catch (err) {
      const error = errorMessage(err);
      if (err instanceof DefiniteFailure) {
        this.emit('fail', f, key, value, error, process);
        this.endFlight(true);
        return { type: 'fail', error };
      }
      this.emit('info', f, key, value, error, process);
      this.endFlight(false);
      this.process += this.stride;
      return { type: 'info', error };
    }
  }

  /** Something the client reported on its own (see the top of this file): ok with a value, or fail with an error. */
  event(f: string, key: string | undefined, outcome: Observed): void {
    const time = sinceOrigin(this.origin);
    if (this.inFlight) this.held.push({ f, key, outcome, time });
    else this.emitEvent({ f, key, outcome, time });
  }

  private emitEvent(e: { f: string; key: string | undefined; outcome: Observed; time: number }): void {
    const { f, key, outcome, time } = e;
    this.emit('invoke', f, key, undefined, undefined, this.process, time);
    this.emit(
      outcome.type,
      f,
      key,
      outcome.value,
      outcome.type === 'fail' ? outcome.error : undefined,
      this.process,
      time,
    );
  }

  /** The request ended: the events held meanwhile are recorded, unless the process ended with it. */
  private endFlight(goesOn: boolean): void {
    this.inFlight = false;
    const held = this.held;
    this.held = [];
    if (goesOn) for (const e of held) this.emitEvent(e);
  }
}
