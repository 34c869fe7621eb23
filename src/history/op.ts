/**
 * The history format: Jepsen's convention, one operation per line in history.jsonl.
 *
 * Every client operation is an `invoke` followed later by its completion from the same
 * process: `ok` (it happened), `fail` (it certainly did not happen) or `info` (unknown: it
 * may have taken effect at any time after its invocation, or never). A process has at
 * most one operation outstanding; after an `info` it never issues again. The nemesis
 * records its own operations with `process: "nemesis"`.
 *
 * `time` is nanoseconds since the test's origin on the system-wide monotonic clock, so
 * worker processes can stamp their own operations.
 */
export type OpType = 'invoke' | 'ok' | 'fail' | 'info';

export type Process = number | 'nemesis';

export interface Op {
  /** Position in the history, assigned by the runner (0, 1, 2, ...). */
  index: number;
  type: OpType;
  /** What the operation does: acquire, release, read, write, start, stop ... */
  f: string;
  process: Process;
  /** Nanoseconds since the test's origin (monotonic). */
  time: number;
  /** The object the operation is on: a lock name, a register key. */
  key?: string;
  /** The operation's argument on invoke, its result on completion. */
  value?: unknown;
  /** Why a `fail` or `info` ended as it did, in the client's words. */
  error?: string;
}

export const OP_TYPES: readonly OpType[] = ['invoke', 'ok', 'fail', 'info'];
