/**
 * Issue 44's thread-cost history: Porcupine's 50-client kv test (10 keys, every operation
 * completing, as its c50-ok log) with two keys added beside each other in check order
 * (smallest first), both smaller than its own keys so that they come first: a key too hard
 * to decide (half its operations crash, so each may or may not have taken effect) and a key
 * made not linearizable by a lost append, which only the search finds, in a few rounds
 * (search-rounds.ts). 'hard-first': the hard key, then the invalid one; 'invalid-first', its
 * mirror.
 *
 * Why this shape: the first part in check order goes to a worker as it starts (parallel.ts),
 * and with the invalid key there, this thread, its other parts decided, took the hard key's
 * rounds one after another while the worker was still loading: 28-70 times the states of
 * one thread, varying from run to run. With only easy keys beside it the counts were equal.
 */
import type { Op } from '../src/history/op.js';
import { lostAppend } from './kv-faults.js';
import { simulateKv } from './simulate.js';

export type Beside = 'hard-first' | 'invalid-first';

/** The added keys' names: neither is one of Porcupine's ("0"-"9"). */
export const HARD_KEY = 'hard';
export const INVALID_KEY = 'invalid';

/**
 * The seeds, found once by trying seeds from 1: the hard key's is the first whose key alone
 * (of 80 operations, and of 120) is still undecided after a second's search; the invalid
 * key's the first whose lost append the search alone finds in 2 to 12 times FIRST_STEPS
 * (22,529 steps: in round 2).
 */
const HARD_SEED = 2;
const INVALID_SEED = 6;
const INVALID_OPERATIONS = 100;
/** Porcupine's own keys have about 200 operations each: both added keys come before them. */
const BASE_OPERATIONS = 2000;

/** One key's operations from a one-key simulation, its processes moved past `base`. */
function oneKey(key: string, operations: number, infoRate: number, seed: number, base: number): Op[] {
  return simulateKv({ clients: 50, operations, infoRate, keys: 1, seed }).map((op) => ({
    ...op,
    key,
    process: (op.process as number) + base,
  }));
}

/** The history of `beside`, its events merged by time (each simulation's clock starts at 0). */
export function besideHardHistory(beside: Beside): Op[] {
  const base = simulateKv({ clients: 50, operations: BASE_OPERATIONS, infoRate: 0, keys: 10, seed: 42 });
  // Smaller than the invalid key to come before it; larger to come after it (both before Porcupine's keys).
  const hardOperations = beside === 'hard-first' ? 80 : 120;
  const hard = oneKey(HARD_KEY, hardOperations, 0.5, HARD_SEED, 100_000);
  const invalid = oneKey(INVALID_KEY, INVALID_OPERATIONS, 0.03, INVALID_SEED, 200_000);
  if (!lostAppend(invalid, INVALID_KEY, INVALID_OPERATIONS / 3)) throw new Error('beside-hard: no append to lose');
  // A stable sort: each simulation's own events stay in their order.
  return [...base, ...hard, ...invalid].sort((a, b) => a.time - b.time).map((op, index) => ({ ...op, index }));
}
