/**
 * A lock with an owner: acquire takes it when free, and only the process that holds it can
 * release it. The owner is the operation's process: lockchaos gives a client a new process
 * number after an `info`, so "process" is "who believes it holds the lock".
 */
import { type Model, type OpInput, type PartOp, type Reduction, reject } from './linearizable-model.js';

/** The owning process, or null when free. */
export type MutexState = number | null;

export const mutex: Model<MutexState> = {
  name: 'mutex',
  description:
    'a lock with an owner: acquire iff free (then held by the process), release iff held by the same process',
  fs: ['acquire', 'release'],
  init: () => null,
  validate(input) {
    if (input.f !== 'acquire' && input.f !== 'release')
      return `model mutex has no operation '${input.f}' (it knows acquire, release)`;
    return undefined;
  },
  step(state, input) {
    const p = input.process;
    if (input.f === 'acquire') {
      if (state === null) return p;
      return reject(acquireHeld, p, state);
    }
    if (state === p) return null;
    return reject(releaseNotHeld, p, state);
  },
  key: (state) => (state === null ? 'free' : state),
  describe: (state) => (state === null ? 'the lock is free' : `the lock is held by process ${state}`),
  describeOp: (input: OpInput) => input.f,
  reduce(ops: readonly PartOp[]): Reduction[] {
    // An indefinite acquire that takes effect leaves the lock held by a process that never
    // issues again (the history rules forbid it), so nothing can release it: it can only
    // forbid later acquires and releases. Dropping it is exact.
    return ops.map((op) => (op.output.known ? 'keep' : op.input.f === 'acquire' ? 'drop' : 'keep'));
  },
};

const acquireHeld = (p: number, holder: number) =>
  holder === p
    ? `acquire by process ${p}, which the model has holding the lock already (a release that failed counts as never made)`
    : `acquire by process ${p}, but the lock is held by process ${holder}`;
const releaseNotHeld = (p: number, holder: number | null) =>
  holder === null
    ? `release by process ${p}, but the lock is free`
    : `release by process ${p}, but the lock is held by process ${holder}`;
