/**
 * Histories of concurrent clients against a real linearizable object (a register, a
 * key-value store, a mutex), some of them crashing (info), generated from the project's
 * seeded PRNG: linearizable by construction, as large as asked. The checker's bench
 * (checker.ts) measures on them, and the checker's tests take the unique-value register
 * histories (hard for the search: every write a value of its own).
 */
import type { Op } from '../src/history/op.js';
import { Rng } from '../src/util/rng.js';

export interface SimulationOptions {
  clients: number;
  /** Operations (invocations) to generate. */
  operations: number;
  /** Share of operations that end as info (half of them took effect, half did not). */
  infoRate: number;
  /** For key-partitioned objects: keys whose operations end as info at this rate instead. */
  infoRates?: Record<string, number>;
  seed: number;
}

interface Client {
  process: number;
  /** The key of its current operation, for key-partitioned objects. */
  key?: string;
  /** 0 idle, 1 invoked, 2 took effect (awaiting its completion). */
  phase: 0 | 1 | 2;
  f: string;
  value: unknown;
  result: unknown;
  failed: boolean;
  /** This operation will crash (end as info). */
  crash: boolean;
  holds: boolean;
}

/**
 * Clients run against one object: each step, a random client moves its operation along
 * (invoke, take effect, complete), so operations overlap as in a real run, and every
 * operation takes effect at one instant between its invocation and its completion. A
 * crashing operation ends as info, having taken effect or not, and its client continues
 * as a new process.
 */
function simulate(
  options: SimulationOptions,
  next: (c: Client, random: () => number) => void,
  apply: (c: Client) => void,
): Op[] {
  // The project's one seeded PRNG (src/util/rng.ts).
  const rng = new Rng(options.seed);
  const random = () => rng.next();
  const history: Op[] = [];
  const clients: Client[] = Array.from({ length: options.clients }, (_, p) => ({
    process: p,
    phase: 0,
    f: '',
    value: undefined,
    result: undefined,
    failed: false,
    crash: false,
    holds: false,
  }));
  let fresh = options.clients;
  let invoked = 0;
  let time = 0;
  const emit = (c: Client, type: Op['type'], value: unknown) => {
    time += 1000;
    const op: Op = { index: history.length, type, f: c.f, process: c.process, time };
    if (c.key !== undefined) op.key = c.key;
    if (value !== undefined) op.value = value;
    history.push(op);
  };
  let open = 0;
  while (invoked < options.operations || open > 0) {
    const c = clients[Math.floor(random() * clients.length)];
    if (c.phase === 0) {
      if (invoked >= options.operations) continue;
      next(c, random);
      c.crash = random() < ((c.key !== undefined && options.infoRates?.[c.key]) || options.infoRate);
      c.failed = false;
      emit(c, 'invoke', c.value);
      c.phase = 1;
      invoked++;
      open++;
    } else if (c.phase === 1) {
      // A crashing release is taken to have reached the server: otherwise the lock would be
      // held forever by a process that never issues again, and the rest would be failures.
      if (c.crash && c.f !== 'release' && random() < 0.5) {
        emit(c, 'info', c.value); // crashed before taking effect
        c.process = fresh++;
        c.phase = 0;
        open--;
        continue;
      }
      apply(c);
      c.phase = 2;
    } else {
      if (c.crash) {
        emit(c, 'info', c.value);
        c.process = fresh++;
      } else {
        emit(c, c.failed ? 'fail' : 'ok', c.failed ? c.value : c.result);
      }
      c.phase = 0;
      open--;
    }
  }
  return history;
}

/**
 * Reads and writes on one register: of unique values, or, with `values`, of random ones
 * below it, as Jepsen's register tests write (rand-int 5): then every value has thousands
 * of writers.
 */
export function simulateRegister(options: SimulationOptions & { values?: number }): Op[] {
  let value: unknown = null;
  let written = 0;
  return simulate(
    options,
    (c, random) => {
      if (random() < 0.5) {
        c.f = 'write';
        c.value = options.values === undefined ? ++written : Math.floor(random() * options.values);
      } else {
        c.f = 'read';
        c.value = undefined;
      }
    },
    (c) => {
      if (c.f === 'write') {
        value = c.value;
        c.result = c.value;
      } else {
        c.result = value;
      }
    },
  );
}

/**
 * A key-value store of strings, as Porcupine's kv tests drive etcd: each operation picks one
 * of `keys` keys, then gets it, puts a unique string or appends one. A get of a key never
 * written answers nil (Jepsen's convention).
 */
export function simulateKv(options: SimulationOptions & { keys: number }): Op[] {
  const store = new Map<string, string>();
  let written = 0;
  return simulate(
    options,
    (c, random) => {
      c.key = String(Math.floor(random() * options.keys));
      const roll = random();
      c.f = roll < 0.5 ? 'get' : roll < 0.75 ? 'put' : 'append';
      c.value = c.f === 'get' ? undefined : `x ${c.process} ${++written} y`;
    },
    (c) => {
      const key = c.key as string;
      if (c.f === 'get') c.result = store.get(key) ?? null;
      else {
        store.set(key, c.f === 'put' ? (c.value as string) : (store.get(key) ?? '') + (c.value as string));
        c.result = c.value;
      }
    },
  );
}

/**
 * A try-lock: clients acquire (failing when held) and, holding it, release. A crashing
 * acquire never takes effect (its client timed out before the grant; otherwise the lock
 * would stay held forever by a process that never issues again); a crashing release does.
 */
export function simulateMutex(options: SimulationOptions): Op[] {
  let owner: number | null = null;
  return simulate(
    options,
    (c) => {
      c.f = c.holds ? 'release' : 'acquire';
      c.value = undefined;
    },
    (c) => {
      if (c.f === 'acquire') {
        if (owner !== null || c.crash) {
          c.failed = !c.crash;
          return;
        }
        owner = c.process;
        c.holds = true;
      } else {
        owner = null;
        c.holds = false;
      }
    },
  );
}
