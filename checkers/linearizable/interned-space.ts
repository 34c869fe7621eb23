/**
 * The states of one search as the model's `step` answers them, interned to small integers
 * by the model's key: the StateSpace of a model that keeps none of its own. Number keys go
 * in a table of typed arrays (number-ids.ts), others in a Map.
 */
import { type Model, type OpInput, type OpOutput, Rejection, type StateSpace } from '../models/model.js';
import { buffers } from './buffers.js';
import { NumberIds } from './number-ids.js';

export class InternedSpace<S> implements StateSpace<S> {
  private readonly states: S[] = [];
  private readonly numberIds = new NumberIds();
  private readonly stringIds = new Map<string, number>();
  /** The states' memory, estimated. */
  private stateBytes = 0;

  constructor(
    private readonly model: Model<S>,
    initial: S,
  ) {
    this.intern(initial);
  }

  step(id: number, input: OpInput, output: OpOutput): number {
    // No reasons: a rejection here only says the op cannot take effect.
    const next = this.model.step(this.states[id], input, output, false);
    return next instanceof Rejection ? -1 : this.intern(next);
  }

  state(id: number): S {
    return this.states[id];
  }

  get size(): number {
    return this.states.length;
  }

  get bytes(): number {
    let bytes = this.stateBytes;
    for (const a of this.numberIds.arrays()) bytes += a.byteLength;
    return bytes;
  }

  release(): void {
    buffers.give(...this.numberIds.arrays());
  }

  private intern(s: S): number {
    const key = this.model.key(s);
    let id = typeof key === 'number' ? this.numberIds.get(key) : (this.stringIds.get(key) ?? -1);
    if (id === -1) {
      id = this.states.length;
      this.states.push(s);
      if (typeof key === 'number') this.numberIds.set(key, id);
      else this.stringIds.set(key, id);
      // A string key: the state is about its size, so twice the key's, plus the map entry's. A
      // number key's entry is in numberIds (counted with its arrays), and its state a number
      // or a small object.
      this.stateBytes += typeof key === 'number' ? 48 : 64 + key.length * 4;
    }
    return id;
  }
}
