/**
 * A client's cycle as the record shows it, and how the harness ends one that the client
 * did not end itself. Every cycle must end on the record: a worker the runner kills at
 * shutdown (its grace ran out) or loses (killed from outside, crashed) may have been
 * holding the lock or waiting for an answer. Without an end, its hold would last "to the
 * end of the test" for the checkers, and another client's later grant would read as an
 * overlap that the harness, not the lock, made (a killed PostgreSQL client's session
 * closes and frees its advisory lock at once).
 *
 * The harness writes what it knows: the outstanding operation completes `info` (it may or
 * may not have taken effect), and a hold with nothing outstanding ends with a release
 * whose outcome is unknown (`info`): the client is gone, so its belief ends; what its
 * going did to the lock (a session closed, a lease left to expire) is the lock's business.
 */
import type { UnindexedOp } from '../history/recorder.js';

/** A hold as the record shows it: from an acquire's ok to the release's invocation or an info. */
export interface Held {
  lock: string;
  process: number;
  /** What the acquire's ok carried (the grant: token, validity, votes); always an object. */
  value: unknown;
  /** When the runner learned of the grant (Date.now()). */
  at: number;
}

/** What the record shows of one client process: the operation it waits on, the lock it holds. */
export class OpenCycle {
  private outstanding?: UnindexedOp;
  private hold?: Held;

  /** Follows one of the client's recorded operations, learned of at `now`. */
  follow(op: UnindexedOp, now = Date.now()): void {
    if (op.type === 'invoke') this.outstanding = op;
    else this.outstanding = undefined;
    if (op.f === 'acquire' && op.type === 'ok') {
      this.hold = { lock: op.key ?? '', process: op.process as number, value: op.value ?? {}, at: now };
    } else if ((op.f === 'release' && op.type === 'invoke') || op.type === 'info') this.hold = undefined;
  }

  /** The lock the client holds, as far as the record shows. */
  get held(): Held | undefined {
    return this.hold;
  }

  /** Whether the record shows the client waiting on an answer or holding the lock. */
  get open(): boolean {
    return this.outstanding !== undefined || this.hold !== undefined;
  }

  /**
   * The operations that end the cycle on the record at `time`, saying `why` (prefixed
   * "harness:", so a reader tells them from the client's own); none when it is closed.
   */
  end(time: number, why: string): UnindexedOp[] {
    const error = `harness: ${why}`;
    const ops: UnindexedOp[] = [];
    const pending = this.outstanding;
    if (pending) {
      const { type: _invoke, time: _at, ...rest } = pending;
      ops.push({ ...rest, type: 'info', time, error });
    } else if (this.hold) {
      const { lock, process } = this.hold;
      ops.push({ type: 'invoke', f: 'release', process, time, key: lock });
      ops.push({ type: 'info', f: 'release', process, time, key: lock, error });
    }
    this.outstanding = undefined;
    this.hold = undefined;
    return ops;
  }
}
