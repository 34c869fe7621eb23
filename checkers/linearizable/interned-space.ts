/**
 * The states of one search as the model's `step` answers them, interned to small integers
 * by the model's key: the StateSpace of a model that keeps none of its own.
 */
import { type Model, type OpInput, type OpOutput, Rejection, type StateSpace } from '../models/linearizable-model.js';

export class InternedSpace<S> implements StateSpace<S> {
  private readonly states: S[] = [];
  private readonly ids = new Map<string | number, number>();
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
    return this.stateBytes;
  }

  release(): void {
    // Nothing of the pool's: the states go with the search.
  }

  private intern(s: S): number {
    const key = this.model.key(s);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.states.length;
      this.states.push(s);
      this.ids.set(key, id);
      // A state and its key are about the same size: twice the key's, plus the map entry's.
      this.stateBytes += typeof key === 'number' ? 48 : 64 + key.length * 4;
    }
    return id;
  }
}
