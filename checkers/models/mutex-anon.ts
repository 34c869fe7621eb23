/**
 * Knossos's mutex: acquire iff free, release iff held, by any process. For lock services
 * whose release does not check the holder.
 */
import { type Model, reject } from './linearizable-model.js';

/** Whether the lock is held. */
export type AnonMutexState = boolean;

export const mutexAnon: Model<AnonMutexState> = {
  name: 'mutex-anon',
  description: "Knossos's mutex: acquire iff free, release iff held (by any process)",
  fs: ['acquire', 'release'],
  init: () => false,
  validate(input) {
    if (input.f !== 'acquire' && input.f !== 'release')
      return `model mutex-anon has no operation '${input.f}' (it knows acquire, release)`;
    return undefined;
  },
  step(held, input) {
    if (input.f === 'acquire') return held ? reject(acquireHeld, input.process) : true;
    return held ? false : reject(releaseFree, input.process);
  },
  key: (held) => (held ? 1 : 0),
  describe: (held) => (held ? 'the lock is held' : 'the lock is free'),
  describeOp: (input) => input.f,
};

const acquireHeld = (process: number) => `acquire by process ${process}, but the lock is held`;
const releaseFree = (process: number) => `release by process ${process}, but the lock is free`;
