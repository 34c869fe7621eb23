/**
 * For the linearizability tests: a brute-force reference checker, a witness verifier, and
 * random small histories per model.
 *
 * The reference shares nothing with the checker but the models' step functions: its own
 * pairing, no partitioning (one state per key, side by side), no memo, no reductions. It
 * tries every order that respects real time, each info or never-completed operation either
 * placed somewhere after its invocation or left out.
 */
import fc from 'fast-check';
import { LARGE_PART } from '../../checkers/linearizable/search-rounds.js';
import { MODELS } from '../../checkers/models/index.js';
import {
  type AnyModel,
  type Model,
  type OpInput,
  type OpOutput,
  Rejection,
} from '../../checkers/models/linearizable-model.js';
import { simulateRegister } from '../../perf/simulate.js';
import type { Op } from '../../src/history/op.js';
import { Rng } from '../../src/util/rng.js';

interface RefOp {
  key: string;
  input: OpInput;
  output: OpOutput;
  call: number;
  ret: number;
  required: boolean;
}

function refOps(history: readonly Op[], model: Model<unknown>): RefOp[] {
  const ops: (RefOp & { failed?: boolean })[] = [];
  const open = new Map<number, number>();
  history.forEach((op, pos) => {
    if (op.process === 'nemesis') return;
    if (op.type === 'invoke') {
      open.set(op.process, ops.length);
      const input: OpInput = { f: op.f, process: op.process, value: op.value, index: op.index };
      if (op.key !== undefined) input.key = op.key;
      ops.push({
        key: op.key ?? '',
        input,
        output: { known: false, value: undefined },
        call: pos,
        ret: Infinity,
        required: false,
      });
      return;
    }
    const j = open.get(op.process);
    if (j === undefined) return;
    open.delete(op.process);
    if (op.type === 'ok') {
      ops[j].output = { known: true, value: op.value };
      ops[j].ret = pos;
      ops[j].required = true;
    } else if (op.type === 'fail') {
      ops[j].failed = true;
    }
  });
  return ops
    .filter((o) => !o.failed)
    .map((o) => {
      if (!model.partition) return o;
      const { key, input, output } = model.partition(o.input, o.output);
      return { ...o, key: key ?? '', input, output };
    });
}

export function bruteForce(history: readonly Op[], model: AnyModel, initial?: unknown): boolean {
  const ops = refOps(history, model);
  const placed = ops.map(() => false);
  const states = new Map<string, unknown>();
  const stateOf = (key: string) => (states.has(key) ? states.get(key) : model.init(initial));
  // Configurations already known to lead nowhere (which ops are placed, every key's state):
  // only so that the reference finishes on the larger random histories.
  const dead = new Set<string>();
  const search = (requiredLeft: number): boolean => {
    if (requiredLeft === 0) return true;
    const here = `${placed.map((p) => (p ? 1 : 0)).join('')}|${JSON.stringify([...states.entries()].sort())}`;
    if (dead.has(here)) return false;
    for (let i = 0; i < ops.length; i++) {
      if (placed[i]) continue;
      const o = ops[i];
      // Every required op that completed before this one was invoked must already be placed.
      if (ops.some((p, j) => !placed[j] && p.required && p.ret < o.call)) continue;
      const before = stateOf(o.key);
      const had = states.has(o.key);
      const after = model.step(before, o.input, o.output);
      if (after instanceof Rejection) continue;
      placed[i] = true;
      states.set(o.key, after);
      if (search(requiredLeft - (o.required ? 1 : 0))) return true;
      placed[i] = false;
      if (had) states.set(o.key, before);
      else states.delete(o.key);
    }
    dead.add(here);
    return false;
  };
  return search(ops.filter((o) => o.required).length);
}

/**
 * Checks a linearization the checker returned: each part's order has every ok op of the part
 * exactly once, respects real time, and the model accepts it.
 */
export function verifyWitness(
  history: readonly Op[],
  model: AnyModel,
  linearization: { key: string | null; order: number[] }[],
  initial?: unknown,
): string | undefined {
  const ops = refOps(history, model);
  const byIndex = new Map(ops.map((o) => [o.input.index, o]));
  const seen = new Set<number>();
  for (const part of linearization) {
    let state = model.init(initial);
    const order = part.order.map((i) => byIndex.get(i));
    for (let a = 0; a < order.length; a++) {
      const o = order[a];
      if (!o) return `part ${part.key}: unknown op at position ${a}`;
      if (o.key !== (part.key ?? '')) return `op ${o.input.index} is in part ${part.key} but has key ${o.key}`;
      if (seen.has(o.input.index)) return `op ${o.input.index} twice`;
      seen.add(o.input.index);
      for (let b = a + 1; b < order.length; b++) {
        const later = order[b] as RefOp;
        if (later.ret < o.call)
          return `op ${later.input.index} completed before op ${o.input.index} was invoked but comes after it`;
      }
      const next = model.step(state, o.input, o.output);
      if (next instanceof Rejection) return `op ${o.input.index}: ${next.reason}`;
      state = next;
    }
  }
  for (const o of ops)
    if (o.required && !seen.has(o.input.index)) return `ok op ${o.input.index} missing from the linearization`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Random small histories

interface Action {
  slot: number;
  roll: number;
  a: number;
  b: number;
  c: number;
}

const actionArb: fc.Arbitrary<Action> = fc.record({
  slot: fc.nat(3),
  roll: fc.nat(99),
  a: fc.nat(11),
  b: fc.nat(11),
  c: fc.nat(11),
});

interface Invocation {
  f: string;
  key?: string;
  value?: unknown;
}

interface Spec {
  invoke(a: number, b: number, c: number): Invocation;
  /** The ok completion's value. */
  complete(inv: Invocation, a: number, b: number, c: number): unknown;
}

const nils = [null, 0, 1, 2];
const strings = [null, 'a', 'b', 'ab', 'ba', 'aa'];

const SPECS: Record<string, Spec> = {
  register: {
    invoke: (a, b, c) => {
      const key = (b + c) % 5 === 0 ? 'y' : undefined;
      return a % 2 === 0 ? { f: 'read', key } : { f: 'write', key, value: b % 3 };
    },
    complete: (inv, _a, _b, c) => (inv.f === 'read' ? nils[c % 4] : inv.value),
  },
  'cas-register': {
    invoke: (a, b, c) =>
      a % 3 === 0 ? { f: 'read' } : a % 3 === 1 ? { f: 'write', value: b % 3 } : { f: 'cas', value: [b % 3, c % 3] },
    complete: (inv, _a, b) => (inv.f === 'read' ? nils[b % 4] : inv.value),
  },
  'fenced-register': {
    invoke: (a, b, c) => (a % 2 === 0 ? { f: 'read' } : { f: 'write', value: [b % 3, c % 4] }),
    complete: (inv, _a, _b, c) => (inv.f === 'read' ? nils[c % 4] : inv.value),
  },
  mutex: {
    invoke: (a) => ({ f: a % 2 === 0 ? 'acquire' : 'release' }),
    complete: () => undefined,
  },
  'mutex-anon': {
    invoke: (a) => ({ f: a % 2 === 0 ? 'acquire' : 'release' }),
    complete: () => undefined,
  },
  kv: {
    invoke: (a, b, c) => {
      const key = b % 2 === 0 ? 'k1' : 'k2';
      const f = ['get', 'put', 'append'][a % 3];
      const v = f === 'get' ? null : c % 2 === 0 ? 'a' : 'b';
      // Both encodings: op.key, or Jepsen's [k v] tuples.
      return (a + c) % 4 === 0 ? { f, value: [key, v] } : { f, key, value: f === 'get' ? undefined : v };
    },
    complete: (inv, _a, b) => {
      if (inv.f !== 'get') return inv.value;
      const v = strings[b % 6];
      return Array.isArray(inv.value) ? [inv.value[0], v] : v;
    },
  },
};

/**
 * A history from actions: each action picks a process slot; an idle one invokes, a busy one
 * completes ok (60%), fail (15%), info (15%) or stays outstanding. After an info the slot
 * takes a fresh process number. Some actions are nemesis ops or stray infos instead.
 */
export function buildHistory(
  model: string,
  actions: readonly Action[],
  processes = 3,
  drain: readonly Action[] = [],
): Op[] {
  const spec = SPECS[model];
  const history: Op[] = [];
  const proc = Array.from({ length: processes }, (_, i) => i);
  const busy: (Invocation | undefined)[] = Array.from({ length: processes }, () => undefined);
  let fresh = processes;
  const push = (op: Omit<Op, 'index' | 'time'>) => {
    history.push({ index: history.length, time: history.length * 1000, ...op } as Op);
  };
  for (const act of actions) {
    const slot = act.slot % processes;
    if (act.roll < 5) {
      push({ type: act.roll % 2 === 0 ? 'invoke' : 'info', f: 'start', process: 'nemesis', value: null });
      continue;
    }
    if (act.roll < 7) {
      push({ type: 'info', f: spec.invoke(act.a, act.b, act.c).f, process: 90 + slot });
      continue;
    }
    const inv = busy[slot];
    const p = proc[slot];
    if (!inv) {
      const next = spec.invoke(act.a, act.b, act.c);
      busy[slot] = next;
      const op: Omit<Op, 'index' | 'time'> = { type: 'invoke', f: next.f, process: p };
      if (next.key !== undefined) op.key = next.key;
      if (next.value !== undefined) op.value = next.value;
      push(op);
      continue;
    }
    if (act.roll >= 92) continue; // stays outstanding a while longer
    complete(slot, act);
  }
  // Then the drain actions complete what is still outstanding, slot by slot, or leave it.
  let d = 0;
  for (let slot = 0; slot < processes && d < drain.length; slot++) {
    if (busy[slot] && drain[d].roll < 92) complete(slot, drain[d]);
    d++;
  }
  return history;

  function complete(slot: number, act: Action): void {
    const inv = busy[slot] as Invocation;
    const type = act.roll < 62 ? 'ok' : act.roll < 77 ? 'fail' : 'info';
    const op: Omit<Op, 'index' | 'time'> = { type, f: inv.f, process: proc[slot] };
    if (inv.key !== undefined) op.key = inv.key;
    const value = type === 'ok' ? spec.complete(inv, act.a, act.b, act.c) : inv.value;
    if (value !== undefined) op.value = value;
    push(op);
    busy[slot] = undefined;
    if (type === 'info') proc[slot] = fresh++;
  }
}

/** Actions for buildHistory: histories of up to about 12 operations on 2-4 processes. */
export const historyArb = fc.record({
  actions: fc.array(actionArb, { maxLength: 36, size: 'max' }),
  processes: fc.integer({ min: 2, max: 4 }),
  drain: fc.array(actionArb, { minLength: 4, maxLength: 4 }),
});

export function modelNamed(name: string): AnyModel {
  return MODELS[name];
}

// ---------------------------------------------------------------------------------------------
// Longer histories from a simulated real object (so that about half are linearizable)

type Performed = { result: unknown } | 'fail';

/** What the real object does with an operation: its result, or fail (no effect). */
const PERFORM: Record<string, (world: Map<string, unknown>, inv: Invocation, p: number) => Performed> = {
  register: (w, inv) => {
    const k = inv.key ?? '';
    if (inv.f === 'read') return { result: w.get(k) ?? null };
    w.set(k, inv.value);
    return { result: inv.value };
  },
  'cas-register': (w, inv) => {
    const cur = w.get('') ?? null;
    if (inv.f === 'read') return { result: cur };
    if (inv.f === 'write') {
      w.set('', inv.value);
      return { result: inv.value };
    }
    const [from, to] = inv.value as [unknown, unknown];
    if (from !== cur) return 'fail';
    w.set('', to);
    return { result: inv.value };
  },
  'fenced-register': (w, inv) => {
    if (inv.f === 'read') return { result: w.get('v') ?? null };
    const [v, t] = inv.value as [unknown, number];
    const max = w.get('t') as number | undefined;
    if (max !== undefined && t < max) return 'fail';
    w.set('v', v);
    w.set('t', t);
    return { result: inv.value };
  },
  mutex: (w, inv, p) => {
    const owner = w.get('owner');
    if (inv.f === 'acquire') {
      if (owner !== undefined) return 'fail';
      w.set('owner', p);
    } else {
      if (owner !== p) return 'fail';
      w.delete('owner');
    }
    return { result: undefined };
  },
  'mutex-anon': (w, inv) => {
    const held = w.get('held') === true;
    if (inv.f === 'acquire' ? held : !held) return 'fail';
    w.set('held', inv.f === 'acquire');
    return { result: undefined };
  },
  kv: (w, inv) => {
    const tuple = Array.isArray(inv.value);
    const k = tuple ? String((inv.value as unknown[])[0]) : (inv.key as string);
    const v = tuple ? (inv.value as unknown[])[1] : inv.value;
    const cur = (w.get(k) as string | undefined) ?? null;
    if (inv.f === 'get') return { result: tuple ? [k, cur] : cur };
    w.set(k, inv.f === 'put' ? v : (cur ?? '') + String(v));
    return { result: inv.value };
  },
};

/**
 * A history of `steps` events from clients running against a real object: each operation
 * takes effect at one moment between its invocation and completion, or fails without effect,
 * or crashes (info) before or after taking effect. With `corrupt`, one completion is then
 * falsified (a result changed, or a fail turned ok), which usually breaks linearizability.
 */
export function simulateHistory(model: string, seed: number, processes: number, steps: number, corrupt: boolean): Op[] {
  const rng = new Rng(seed);
  const random = () => rng.next();
  const pick = (n: number) => Math.floor(random() * n);
  const spec = SPECS[model];
  const perform = PERFORM[model];
  const world = new Map<string, unknown>();
  const history: Op[] = [];
  type Client = { p: number; inv?: Invocation; done?: Performed };
  const clients: Client[] = Array.from({ length: processes }, (_, p) => ({ p }));
  let fresh = processes;
  const push = (op: Omit<Op, 'index' | 'time'>) =>
    history.push({ index: history.length, time: history.length, ...op } as Op);
  for (let s = 0; s < steps; s++) {
    const c = clients[pick(processes)];
    if (!c.inv) {
      c.inv = spec.invoke(pick(12), pick(12), pick(12));
      if (c.inv.f === 'write' && model === 'fenced-register') c.inv.value = [pick(5), Math.floor(s / 3) + pick(3)];
      const op: Omit<Op, 'index' | 'time'> = { type: 'invoke', f: c.inv.f, process: c.p };
      if (c.inv.key !== undefined) op.key = c.inv.key;
      if (c.inv.value !== undefined) op.value = c.inv.value;
      push(op);
    } else if (!c.done) {
      if (random() < 0.04) {
        complete(c, 'info'); // crashed before taking effect
      } else {
        c.done = perform(world, c.inv, c.p);
      }
    } else {
      complete(c, c.done === 'fail' ? 'fail' : random() < 0.05 ? 'info' : 'ok');
    }
  }
  if (corrupt) {
    const candidates = history.filter(
      (op) => op.type === 'fail' || (op.type === 'ok' && (op.f === 'read' || op.f === 'get')),
    );
    if (candidates.length > 0) {
      const victim = candidates[pick(candidates.length)];
      if (victim.type === 'fail') victim.type = 'ok';
      else if (Array.isArray(victim.value)) victim.value = [victim.value[0], strings[pick(strings.length)]];
      else victim.value = model === 'kv' ? strings[pick(strings.length)] : nils[pick(nils.length)];
    }
  }
  return history;

  function complete(c: Client, type: 'ok' | 'fail' | 'info'): void {
    const inv = c.inv as Invocation;
    const op: Omit<Op, 'index' | 'time'> = { type, f: inv.f, process: c.p };
    if (inv.key !== undefined) op.key = inv.key;
    const value = type === 'ok' && c.done && c.done !== 'fail' ? c.done.result : inv.value;
    if (value !== undefined) op.value = value;
    push(op);
    c.inv = undefined;
    c.done = undefined;
    if (type === 'info') c.p = fresh++;
  }
}

/**
 * A register part on `key` whose violation only the search finds (no read is impossible
 * alone, so the pre-check passes it): plain writes of unique values, `padding` events of
 * them, then two concurrent writes and reads of 1, 2, 1. Processes from `base`; indices 0.
 */
export function searchOnlyViolation(key: string, base: number, padding: number): Op[] {
  const ops: Op[] = [];
  const op = (type: Op['type'], f: string, process: number, value?: number) =>
    ops.push({ index: 0, type, f, process, time: 0, key, ...(value === undefined ? {} : { value }) });
  for (let v = 10; ops.length < padding; v++) {
    op('invoke', 'write', base + 3, v);
    op('ok', 'write', base + 3, v);
  }
  op('invoke', 'write', base, 1);
  op('invoke', 'write', base + 1, 2);
  op('ok', 'write', base, 1);
  op('ok', 'write', base + 1, 2);
  for (const v of [1, 2, 1]) {
    op('invoke', 'read', base + 2);
    op('ok', 'read', base + 2, v);
  }
  return ops;
}

/**
 * Histories of one model, one per seed, interleaved op by op, each with its own keys (a
 * history's own keys, op.key or kv's [k v], get its prefix) and its own processes.
 */
export function keyedHistory(
  model: string,
  seeds: number[],
  corrupt: (seed: number, k: number) => boolean,
  steps = 600,
): Op[] {
  const streams = seeds.map((seed, k) =>
    simulateHistory(model, seed, 4, steps, corrupt(seed, k)).map((op) => {
      const moved: Op = { ...op, process: typeof op.process === 'number' ? op.process + 1000 * k : op.process };
      if (model === 'kv' && op.key === undefined && Array.isArray(op.value))
        moved.value = [`s${k}.${op.value[0]}`, op.value[1]];
      else moved.key = `s${k}.${op.key ?? ''}`;
      return moved;
    }),
  );
  const out: Op[] = [];
  for (let i = 0; streams.some((s) => i < s.length); i++)
    for (const s of streams) if (i < s.length) out.push({ ...s[i], index: out.length });
  return out;
}

/**
 * A register part past LARGE_PART whose search backtracks (50 clients, past 4 steps an
 * operation), ending in a read of the first value written, overwritten long before: a stale
 * read the pre-check sees at once, and the search only at its end.
 */
export function largeRegisterWithStaleRead(): Op[] {
  const history = simulateRegister({ clients: 50, operations: LARGE_PART + 1000, infoRate: 0.01, seed: 7 });
  const written = history.find((o) => o.type === 'ok' && o.f === 'write')?.value;
  const last = history.length;
  history.push(
    { index: last, type: 'invoke', f: 'read', process: 999, time: 0 },
    { index: last + 1, type: 'ok', f: 'read', process: 999, time: 0, value: written },
  );
  return history;
}
