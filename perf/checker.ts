/**
 * How fast the linearizability checker is, and how much memory it takes, on histories like
 * a real test's: concurrent clients against a real linearizable object (a register, a
 * mutex), some of them crashing (info), generated from a seeded PRNG; and on a few of them
 * falsified in the middle (a stale read, a second holder), which must come out invalid.
 *
 *     npm run bench:checker                 the table
 *     node dist/perf/checker.js --quick    without the 100k- and 1M-operation cases
 *     node dist/perf/checker.js --acceptance
 *                                           issue 27's acceptance figures alone (printed
 *                                           after the table too): an invalid key (a stale
 *                                           read; a lost append) after two hard ones
 *                                           against that key alone, and the lost append
 *                                           against the least any schedule can search,
 *                                           states on 2 threads against 1, 100 small
 *                                           histories
 *     node dist/perf/checker.js --threads-cost
 *                                           issue 44's figures alone (printed after
 *                                           issue 27's too): Porcupine's 50-client kv
 *                                           test with an invalid key beside a hard one,
 *                                           and its mirror, 5 runs on 1 thread and on 2:
 *                                           the states counted, and those discarded
 *     node dist/perf/checker.js --small-against DIST [rounds]
 *                                           (c) beside another build (its dist folder,
 *                                           c7f3e6e's say), interleaved in one process
 *     node dist/perf/checker.js --kv 300000 [pairs] [--machine]
 *                                           kv over 10 keys on one thread and on two,
 *                                           back to back (every other pair two threads
 *                                           first), 3 pairs (or `pairs`): each pair's
 *                                           speed-up, then the median;
 *                                           --machine: after each pair, two one-thread
 *                                           checks at once in two processes, what two
 *                                           cores give with nothing shared at all
 *
 * Also: Jepsen's register tests (five values, so thousands of writers each), Porcupine's
 * key-partitioned kv tests (10 keys, 50 clients) in one thread and on two, at 100k and 1M
 * operations (where a second thread pays, see parallel.ts), a 1M-operation
 * register history, and several files checked in one process, the hardest first (each its
 * own budget and verdict). Each case runs in a fresh child process, so that peak RSS is the
 * case's own; "peak budget" is the check's own count of its memory, what --memory-limit
 * weighs (the largest part's search).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkLinearizable } from '../checkers/linearizable/check-linearizable.js';
import { checkLinearizableParallel, MIN_OPERATIONS, PARALLEL_NODE_FLAGS } from '../checkers/linearizable/parallel.js';
import type { Op } from '../src/history/op.js';
import { quantiles } from '../src/stats/quantiles.js';
import { Rng } from '../src/util/rng.js';
import { type Beside, besideHardHistory } from './beside-hard.js';
import { type Fault, lostAppend, staleRead } from './kv-faults.js';
import { simulateKv, simulateMutex, simulateRegister } from './simulate.js';

interface Case {
  model: 'register' | 'mutex' | 'kv';
  clients: number;
  operations: number;
  infoRate: number;
  seed: number;
  /** Registers: writes of random values below this (Jepsen's rand-int 5), not unique ones. */
  values?: number;
  /** kv: the keys (parts). */
  keys?: number;
  /** Worker threads for the parts; 1 (the default): in this thread. */
  threads?: number;
  /** Falsify one completion in the middle: a read of an older value, a failed acquire made ok. */
  corrupt?: boolean;
  /** Several histories checked one after another in one process, as `lockchaos check a b c` does. */
  files?: Case[];
  /** kv: two hard keys before an easy invalid key (hardKeysHistory); 'alone': that key's operations only. */
  hardKeys?: 'whole' | 'alone';
  /** With hardKeys, the invalid key's fault: a stale read (the default), or a lost append. */
  fault?: Fault;
  /** kv: issue 44's thread-cost history (beside-hard.ts). */
  beside?: Beside;
  /** This many small register histories (20-200 operations), checked one after another: the fixed cost of a check. */
  small?: number;
}

/** The history made non-linearizable at its middle, the way real bugs look. */
function corrupt(history: Op[], model: Case['model']): void {
  if (model === 'kv') return;
  const middle = Math.floor(history.length / 2);
  if (model === 'mutex') {
    const victim = history.slice(middle).find((op) => op.type === 'fail' && op.f === 'acquire');
    if (victim) victim.type = 'ok';
    return;
  }
  // A read that returns the value of a write that completed 200 writes before the read was
  // invoked: a stale read, whatever the concurrency (with 50 clients, a write fifty back
  // could still be in flight when the read began, and the read linearizable).
  const victim = history.slice(middle).find((op) => op.type === 'ok' && op.f === 'read');
  if (!victim) return;
  let invoked = victim.index;
  while (invoked > 0 && !(history[invoked].process === victim.process && history[invoked].type === 'invoke')) invoked--;
  const writes = history.slice(0, invoked).filter((op) => op.type === 'ok' && op.f === 'write');
  if (writes.length >= 200) victim.value = writes[writes.length - 200].value;
}

interface Measured {
  valid: unknown;
  events: number;
  ms: number;
  /** The check's own count of its memory (reading excluded here: histories are generated). */
  peakBudgetMiB: number;
  peakRssMiB: number;
  cacheEntries: number;
  /** Search steps over all parts: the states searched. */
  iterations: number;
  /** Steps searched again for a counterexample (CheckStats.counterexampleIterations). */
  againIterations?: number;
  /** Steps threads searched past the one-thread schedule, not in `iterations` (CheckStats.discardedIterations). */
  discardedIterations?: number;
  threads: number;
  summary: string;
  /** For several files: each one's. */
  files?: Measured[];
}

function history(c: Case): Op[] {
  if (c.hardKeys) return hardKeysHistory(c).history;
  if (c.beside) return besideHardHistory(c.beside);
  const options = { clients: c.clients, operations: c.operations, infoRate: c.infoRate, seed: c.seed };
  const h =
    c.model === 'register'
      ? simulateRegister({ ...options, values: c.values })
      : c.model === 'kv'
        ? simulateKv({ ...options, keys: c.keys ?? 1 })
        : simulateMutex(options);
  if (c.corrupt) corrupt(h, c.model);
  return h;
}

/** Budgets: 1 GiB and 2 minutes; in the several-files case 256 MiB and 20 s per file. */
async function runCase(c: Case, memoryLimitBytes = 2 ** 30, timeLimitMs = 120_000): Promise<Measured> {
  if (c.small) return runSmall(c);
  if (c.files) {
    const files: Measured[] = [];
    const started = performance.now();
    for (const f of c.files) files.push(await runCase(f, 2 ** 28, 20_000));
    const worst = files.find((f) => f.valid === false) ?? files[0];
    return {
      ...worst,
      valid: files.map((f) => String(f.valid)).join('/'),
      events: files.reduce((n, f) => n + f.events, 0),
      ms: performance.now() - started,
      peakBudgetMiB: Math.max(...files.map((f) => f.peakBudgetMiB)),
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
      cacheEntries: files.reduce((n, f) => n + f.cacheEntries, 0),
      iterations: files.reduce((n, f) => n + f.iterations, 0),
      files,
    };
  }
  const h = history(c);
  // With threads, on threads whatever the size: the case is there to compare.
  const threads = c.threads ?? 1;
  const result = await checkLinearizableParallel(h, c.model, {
    timeLimitMs,
    memoryLimitBytes,
    threads,
    minOperations: 0,
  });
  return {
    valid: result.valid,
    events: h.length,
    ms: result.stats.ms,
    peakBudgetMiB: result.stats.peakBudgetBytes / 2 ** 20,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    cacheEntries: result.stats.cacheEntries,
    iterations: result.stats.iterations,
    againIterations: result.stats.counterexampleIterations,
    discardedIterations: result.stats.discardedIterations,
    threads: result.stats.threads,
    summary: result.summary,
  };
}

/** The hard keys of hardKeysHistory: half their operations crash, so each may or may not have taken effect. */
const HARD_KEYS = ['0', '1'];

/**
 * Issue 27's acceptance history: Porcupine's kv test (10 keys, 50 clients) with two keys too
 * hard to decide in a minute (half their operations crash: info) before, in check order
 * (smallest first), an easy key made not linearizable by `c.fault`. `alone`: that key's
 * operations only.
 */
export function hardKeysHistory(c: Case): { history: Op[]; invalidKey: string } {
  for (let seed = c.seed; ; seed++) {
    const h = simulateKv({
      clients: c.clients,
      operations: c.operations,
      infoRate: c.infoRate,
      keys: c.keys ?? 10,
      seed,
      infoRates: Object.fromEntries(HARD_KEYS.map((k) => [k, 0.5])),
    });
    // The check order: smallest first, then by first operation.
    const size = new Map<string, number>();
    for (const op of h) if (op.type === 'invoke') size.set(op.key as string, (size.get(op.key as string) ?? 0) + 1);
    const order = [...size.keys()].sort((a, b) => (size.get(a) as number) - (size.get(b) as number));
    const invalidKey = order.findLast((k) => !HARD_KEYS.includes(k));
    if (invalidKey === undefined || HARD_KEYS.some((k) => order.indexOf(k) > order.indexOf(invalidKey))) continue;
    const after = (size.get(invalidKey) as number) / 20;
    const alone = () => h.filter((op) => op.key === invalidKey).map((op, index) => ({ ...op, index }));
    if (c.fault === 'lost-append') {
      if (!lostAppend(h, invalidKey, after)) continue;
      // Not linearizable, and not by the pre-check alone (no step searched): else the next seed.
      const check = checkLinearizable(alone(), 'kv', { timeLimitMs: 10_000 });
      if (check.valid !== false || check.stats.iterations === 0) continue;
    } else if (!staleRead(h, invalidKey, after)) continue;
    return { history: c.hardKeys === 'alone' ? alone() : h, invalidKey };
  }
}

/** Acceptance (c): 100 small register histories, in acceptance() and beside another build. */
const SMALL_CASE: Case = { model: 'register', clients: 5, operations: 0, infoRate: 0.05, seed: 7, small: 100 };

/** `c.small` register histories of 20 to 200 operations, 1 to 5 clients, from `c.seed`. */
function smallHistories(c: Case): Op[][] {
  const rng = new Rng(c.seed);
  return Array.from({ length: c.small as number }, (_, i) =>
    simulateRegister({
      clients: 1 + Math.floor(rng.next() * 5),
      operations: 20 + Math.floor(rng.next() * 181),
      infoRate: c.infoRate,
      seed: c.seed + i,
    }),
  );
}

type Check = (history: readonly Op[], model: string) => unknown;

/**
 * The checker of another build of lockchaos, from its compiled folder (`dist`): its
 * checkLinearizableParallel, or an older build's checkLinearizable (c7f3e6e has no other).
 */
async function checkerIn(dist: string): Promise<Check> {
  const at = (file: string) => pathToFileURL(resolve(dist, 'checkers/linearizable', file)).href;
  if (existsSync(fileURLToPath(at('parallel.js')))) {
    return (await import(at('parallel.js'))).checkLinearizableParallel as Check;
  }
  if (existsSync(fileURLToPath(at('index.js')))) return (await import(at('index.js'))).checkLinearizable as Check;
  console.error(
    `bench:checker: no checker in ${dist} (checkers/linearizable/parallel.js or index.js); give the dist folder of a build of lockchaos`,
  );
  process.exit(3);
}

/**
 * --small-against DIST [ROUNDS]: acceptance (c) beside another build, in one process. The
 * 100 small histories, each checked by this build and the other in turn, who goes first
 * alternating, ROUNDS rounds (default 100; the first two warm up and are not counted): the
 * summed times, their ratio, and the per-round ratios' median and quartiles.
 */
async function smallAgainst(dist: string, rounds: number): Promise<string[]> {
  const other = await checkerIn(dist);
  const ours: Check = (history, model) => checkLinearizableParallel(history, model);
  const histories = smallHistories(SMALL_CASE);
  let oursMs = 0;
  let otherMs = 0;
  const ratios: number[] = [];
  for (let round = 0; round < rounds + 2; round++) {
    let a = 0;
    let b = 0;
    for (const [i, history] of histories.entries()) {
      const timed = async (check: Check) => {
        const started = performance.now();
        await check(history, 'register');
        return performance.now() - started;
      };
      if ((i + round) % 2 === 0) {
        a += await timed(ours);
        b += await timed(other);
      } else {
        b += await timed(other);
        a += await timed(ours);
      }
    }
    if (round < 2) continue;
    oursMs += a;
    otherMs += b;
    ratios.push(a / b);
  }
  const [q1, q2, q3] = quantiles(ratios, [0.25, 0.5, 0.75]).map((q) => (q.value ?? Number.NaN).toFixed(2));
  return [
    `(c) 100 register histories of 20-200 operations, each checked by this build and by ${dist} in turn, ${rounds} rounds in one process:`,
    `    summed ${oursMs.toFixed(0)} ms against ${otherMs.toFixed(0)} ms: ${ratio(oursMs, otherMs)} (goal: at most 1x); per round ${q2}x (quartiles ${q1}x-${q3}x)`,
  ];
}

/**
 * `c.small` register histories of 20 to 200 operations, 1 to 5 clients, each checked as
 * `lockchaos check` checks a file (checkLinearizableParallel, its defaults): the summed time,
 * and the median check in the summary. Checked twice, the first round to warm up.
 */
async function runSmall(c: Case): Promise<Measured> {
  const histories = smallHistories(c);
  let times: number[] = [];
  for (let round = 0; round < 2; round++) {
    times = [];
    for (const h of histories) {
      const started = performance.now();
      await checkLinearizableParallel(h, 'register');
      times.push(performance.now() - started);
    }
  }
  const ms = times.reduce((a, b) => a + b, 0);
  return {
    valid: true,
    events: histories.reduce((n, h) => n + h.length, 0),
    ms,
    peakBudgetMiB: 0,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    cacheEntries: 0,
    iterations: 0,
    threads: 1,
    summary: `median check ${median(times)?.toFixed(3)} ms`,
  };
}

/** Porcupine's kv tests: 10 keys, 50 clients, get/put/append, few crashes. */
const kvCase = (operations: number, threads: number): Case => ({
  model: 'kv',
  clients: 50,
  operations,
  infoRate: 0.001,
  keys: 10,
  threads,
  seed: 42,
});

/** --kv OPS [PAIRS]: the kv case's size and how many pairs to run. */
function kvPairsArg(args: string[]): { operations: number; pairs: number } | undefined {
  const at = args.indexOf('--kv');
  if (at < 0) return undefined;
  return { operations: Number(args[at + 1]), pairs: Number(args[at + 2] ?? 3) };
}

/**
 * --kv: the kv case on one thread and on two, pair after pair, back to back (the machine's
 * other load comes and goes). Every other pair runs two threads first, so that a load that
 * grows or fades through a pair weighs on both sides alike. A pair counts only when both of
 * its runs (and, with --machine, its two at once) succeeded.
 */
async function kvPairs(
  self: string,
  operations: number,
  pairs: number,
  machine: boolean,
): Promise<{ rows: string[][]; lines: string[] }> {
  const rows: string[][] = [];
  const speedUps: number[] = [];
  const machineSpeedUps: number[] = [];
  for (let pair = 0; pair < pairs; pair++) {
    try {
      const order = pair % 2 === 0 ? [1, 2] : [2, 1];
      const ms = new Map<number, number>();
      for (const threads of order) {
        const c = kvCase(operations, threads);
        const m = await runChild(self, c);
        rows.push(rowOf(c, m));
        ms.set(threads, m.ms);
      }
      const one = ms.get(1) as number;
      // Two one-thread checks at once: the speed-up two cores give this work with nothing
      // shared (twice the one-thread time of the pair, over the later of the two to end).
      const alone = kvCase(operations, 1);
      const together = machine ? await Promise.all([runChild(self, alone), runChild(self, alone)]) : undefined;
      speedUps.push(one / (ms.get(2) as number));
      if (together) machineSpeedUps.push((2 * one) / Math.max(...together.map((t) => t.ms)));
    } catch (err) {
      console.error((err as Error).message);
      process.exitCode = 1;
    }
  }
  const each = (xs: number[]) => xs.map((x) => `${x.toFixed(2)}x`).join(', ');
  const lines = [
    `two threads against one, per pair: ${each(speedUps)}; median ${median(speedUps)?.toFixed(2)}x (goal 1.7x)`,
  ];
  if (machine)
    lines.push(
      `two one-thread checks at once against one alone, per pair: ${each(machineSpeedUps)}; median ${median(machineSpeedUps)?.toFixed(2)}x (this machine's limit for two threads)`,
    );
  return { rows, lines };
}

function cases(quick: boolean): Case[] {
  const out: Case[] = [];
  for (const model of ['register', 'mutex'] as const) {
    for (const operations of quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) {
      for (const clients of [5, 10, 50]) out.push({ model, clients, operations, infoRate: 0.05, seed: 42 });
    }
  }
  // Not linearizable: how fast the checker says so, and explains it.
  for (const model of ['register', 'mutex'] as const) {
    for (const clients of [10, 50]) {
      out.push({ model, clients, operations: quick ? 10_000 : 100_000, infoRate: 0.05, seed: 42, corrupt: true });
    }
  }
  const big = quick ? 10_000 : 100_000;
  // Jepsen's register tests: five values, so each has thousands of writers; few crashes.
  out.push({ model: 'register', clients: 10, operations: big, infoRate: 0.001, values: 5, seed: 42 });
  // Porcupine's kv tests, in this thread, then on 2 threads; and a 1M-operation one, where
  // a second thread pays (see parallel.ts).
  for (const operations of quick ? [big] : [big, 1_000_000])
    for (const threads of [1, 2]) out.push(kvCase(operations, threads));
  if (!quick) out.push({ model: 'register', clients: 10, operations: 1_000_000, infoRate: 0.001, seed: 42 });
  // Several files in one process, the hardest first: each its own budget and verdict.
  out.push({
    model: 'register',
    clients: 50,
    operations: 0,
    infoRate: 0.001,
    seed: 42,
    files: [
      { model: 'register', clients: 50, operations: big, infoRate: 0.001, seed: 42 },
      { model: 'register', clients: 10, operations: big / 10, infoRate: 0.05, seed: 43, corrupt: true },
      { model: 'mutex', clients: 10, operations: big / 10, infoRate: 0.05, seed: 44, corrupt: true },
    ],
  });
  return out;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r) => r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '))
    .join('\n');
}

/** Large histories run under the flags `lockchaos check` runs large files with, on one thread too. */
const nodeFlags = (c: Case) => (c.operations >= MIN_OPERATIONS ? PARALLEL_NODE_FLAGS : []);

/** A case in a child process of its own, so that its peak RSS is its own (several can run at once). */
function runChild(self: string, c: Case): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags(c), self, '--case', JSON.stringify(c)]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      const failed = (why: string) => reject(new Error(`case ${JSON.stringify(c)} failed:\n${why}`));
      if (code !== 0) return failed(err);
      try {
        resolve(JSON.parse(out) as Measured);
      } catch {
        failed(`its output is not a measurement: ${out.slice(0, 200)}`);
      }
    });
  });
}

/** The median by nearest rank (the lower of the two middle ones); null for none. */
const median = (xs: number[]) => quantiles(xs, [0.5])[0].value;

const HEADER = [
  'model',
  'history',
  'clients',
  'operations',
  'events',
  'info',
  'threads',
  'verdict',
  'time ms',
  'peak budget MiB',
  'peak RSS MiB',
  'memo entries',
];

/** A case's row of the table. */
function rowOf(c: Case, m: Measured, label?: string): string[] {
  return [
    label ?? c.model,
    c.hardKeys
      ? `${c.hardKeys === 'alone' ? 'invalid key alone' : '2 hard keys first'}, ${c.fault ?? 'stale-read'}`
      : c.beside
        ? `Porcupine c50 + ${c.beside}`
        : c.small
          ? `${c.small} small`
          : c.corrupt
            ? 'falsified'
            : c.files
              ? 'all files'
              : c.values
                ? `${c.values} values`
                : c.keys
                  ? `${c.keys} keys`
                  : 'simulated',
    String(c.clients),
    c.operations.toLocaleString('en-US'),
    m.events.toLocaleString('en-US'),
    `${Math.round(c.infoRate * 1000) / 10}%`,
    String(m.threads || 1),
    String(m.valid),
    m.ms.toFixed(0),
    m.peakBudgetMiB.toFixed(0),
    m.peakRssMiB.toFixed(0),
    m.cacheEntries.toLocaleString('en-US'),
  ];
}

/** A hard-keys case (hardKeysHistory): Porcupine's kv shape, 10k operations. */
const hardKeysCase = (hardKeys: 'whole' | 'alone', threads: number, fault: Fault): Case => ({
  model: 'kv',
  clients: 50,
  operations: 10_000,
  infoRate: 0.001,
  keys: 10,
  seed: 42,
  threads,
  hardKeys,
  fault,
});

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

/**
 * What any schedule must search before it finds the invalid key of hardKeysHistory, the key's
 * place in the check order chosen against it: the key's own steps S, and S again for each
 * other key that needs at least S steps of its own. The schedule cannot tell which of those
 * keys is the invalid one, so the last of them to have searched S steps can be, and then
 * every one of them has searched S. Each key is checked alone in this process (a key still
 * undecided after a second counts when it has searched S by then).
 */
function schedulingBound(invalidAloneSteps: number, fault: Fault): { bound: number; slower: number; keys: number } {
  const { history } = hardKeysHistory(hardKeysCase('whole', 1, fault));
  const keys = [...new Set(history.map((op) => op.key as string))];
  let slower = 0;
  for (const key of keys) {
    const own = history.filter((op) => op.key === key).map((op, index) => ({ ...op, index }));
    const result = checkLinearizable(own, 'kv', { timeLimitMs: 1000 });
    if (result.valid !== false && result.stats.iterations >= invalidAloneSteps) slower++;
  }
  return { bound: invalidAloneSteps * (1 + slower), slower, keys: keys.length };
}

/**
 * Issue 27's acceptance figures: (a) the invalid key after two hard ones found on 1 and 2
 * threads against that key checked alone, 3 rounds interleaved, medians, for each fault (the
 * stale read the pre-check finds, the lost append only the search finds); (b) the states
 * searched on 2 threads against 1, per history with parts to share (`states`: the kv cases'
 * from the table, by size; a history of one part is checked on one thread whatever is
 * asked); (c) the fixed cost of small checks.
 */
async function acceptance(
  self: string,
  states: Map<number, Map<number, number>>,
): Promise<{ rows: string[][]; lines: string[] }> {
  const rows: string[][] = [];
  const lines: string[] = [];
  let twoThreadSteps = '';
  for (const fault of ['stale-read', 'lost-append'] as const) {
    const sides = [hardKeysCase('alone', 1, fault), hardKeysCase('whole', 1, fault), hardKeysCase('whole', 2, fault)];
    const ms: number[][] = sides.map(() => []);
    const steps: number[] = [];
    const again: number[] = [];
    for (let round = 0; round < 3; round++) {
      for (const [i, c] of sides.entries()) {
        const m = await runChild(self, c);
        if (round === 0) rows.push(rowOf(c, m));
        if (m.valid !== false) console.error(`unexpected: ${rowOf(c, m).join(' ')}: ${m.summary}`);
        ms[i].push(m.ms);
        steps[i] = m.iterations;
        again[i] = m.againIterations ?? 0;
      }
    }
    const searchedAgain = again.some((a) => a > 0)
      ? ` (and for the counterexample searched again: ${again[1].toLocaleString('en-US')}, ${again[2].toLocaleString('en-US')}; ${again[0].toLocaleString('en-US')})`
      : '';
    const [alone, one, two] = ms.map((xs) => median(xs) as number);
    lines.push(
      `(a) ${fault === 'stale-read' ? 'a stale read' : 'a lost append'} in a key after 2 hard keys (10 keys, 50 clients, 10k operations), medians of 3: found in ${one.toFixed(0)} ms on 1 thread, ${two.toFixed(0)} ms on 2; the key alone ${alone.toFixed(0)} ms: ${ratio(one, alone)} and ${ratio(two, alone)} (goal 2x at most)`,
      `    states searched: ${steps[1].toLocaleString('en-US')} on 1 thread, ${steps[2].toLocaleString('en-US')} on 2; the key alone ${steps[0].toLocaleString('en-US')}${searchedAgain}`,
    );
    if (steps[0] > 0) {
      const bound = schedulingBound(steps[0], fault);
      lines.push(
        `    the least any schedule searches here: ${bound.bound.toLocaleString('en-US')} states (the key's own ${steps[0].toLocaleString('en-US')}, once for it and once for each of the ${bound.slower} other keys of ${bound.keys} that need more), ${ratio(bound.bound, steps[0])} the key alone; this schedule ${ratio(steps[1], bound.bound)} that bound`,
      );
      twoThreadSteps = `2 hard keys first ${ratio(steps[2], steps[1])}`;
    }
  }
  const small = await runChild(self, SMALL_CASE);
  rows.push(rowOf(SMALL_CASE, small));
  const stateRatios = [...states].flatMap(([ops, byThreads]) => {
    const a = byThreads.get(1);
    const b = byThreads.get(2);
    return a !== undefined && b !== undefined ? [`kv ${ops.toLocaleString('en-US')} ops ${ratio(b, a)}`] : [];
  });
  if (twoThreadSteps) stateRatios.push(twoThreadSteps);
  lines.push(
    `(b) states searched on 2 threads against 1: ${stateRatios.join(', ')} (goal 1.2x at most; a history of one part is checked on one thread)`,
    `(c) 100 register histories of 20-200 operations, in one process: ${small.ms.toFixed(1)} ms summed, ${small.summary} (beside c7f3e6e's: --small-against)`,
  );
  return { rows, lines };
}

/** Issue 44's thread-cost case (beside-hard.ts) on `threads` threads. */
const besideCase = (beside: Beside, threads: number): Case => ({
  model: 'kv',
  clients: 50,
  operations: 2000,
  infoRate: 0,
  keys: 10,
  seed: 42,
  threads,
  beside,
});

/**
 * Issue 44's acceptance: the thread-cost history (an invalid key beside a hard one, and its
 * mirror) on 1 thread and on 2, `runs` times each, alternated: the states counted on 2
 * threads against 1 (goal: at most 1.2x, the same count every run), and the states the
 * threads searched past the one-thread schedule and discarded (CheckStats.discardedIterations:
 * the overlap's cost; goal: counted and discarded together at most 1.2x one thread's).
 */
async function threadCost(self: string, runs = 5): Promise<{ rows: string[][]; lines: string[] }> {
  const rows: string[][] = [];
  const lines: string[] = [];
  const fmt = (xs: number[]) => xs.map((x) => x.toLocaleString('en-US')).join(', ');
  for (const beside of ['hard-first', 'invalid-first'] as const) {
    const steps = new Map<number, number[]>([
      [1, []],
      [2, []],
    ]);
    const discarded: number[] = [];
    const ms = new Map<number, number[]>([
      [1, []],
      [2, []],
    ]);
    for (let run = 0; run < runs; run++) {
      for (const threads of run % 2 === 0 ? [1, 2] : [2, 1]) {
        const c = besideCase(beside, threads);
        const m = await runChild(self, c);
        if (run === 0) rows.push(rowOf(c, m));
        if (m.valid !== false) console.error(`unexpected: ${rowOf(c, m).join(' ')}: ${m.summary}`);
        steps.get(threads)?.push(m.iterations);
        ms.get(threads)?.push(m.ms);
        if (threads === 2) discarded.push(m.discardedIterations ?? 0);
      }
    }
    const [one, two] = [steps.get(1) as number[], steps.get(2) as number[]];
    const same = (xs: number[]) => xs.every((x) => x === xs[0]);
    const total = two.map((counted, run) => counted + discarded[run]);
    const [oneMs, twoMs] = [median(ms.get(1) as number[]) as number, median(ms.get(2) as number[]) as number];
    lines.push(
      `${beside}: states counted, ${runs} runs: 1 thread ${fmt(one)}; 2 threads ${fmt(two)}: ${ratio(Math.max(...two), Math.max(...one))} at most (goal 1.2x), ${same(one) && same(two) ? 'the same every run' : 'NOT the same every run'}`,
      `    searched past the one-thread schedule and discarded on 2 threads: ${fmt(discarded)}; all told ${fmt(total)}: ${ratio(Math.max(...total), Math.max(...one))} of one thread's at most (goal 1.2x), ${same(total) ? 'the same every run' : 'NOT the same every run'}; median time ${oneMs.toFixed(0)} ms on 1 thread, ${twoMs.toFixed(0)} ms on 2`,
    );
  }
  return { rows, lines };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const caseArg = args.indexOf('--case');
  if (caseArg >= 0) {
    void runCase(JSON.parse(args[caseArg + 1]) as Case).then((m) => process.stdout.write(JSON.stringify(m)));
    return;
  }
  const self = fileURLToPath(import.meta.url);
  console.log(`checker benchmark, node ${process.version}, each case in its own process\n`);
  const pairs = kvPairsArg(args);
  if (pairs) {
    const { rows, lines } = await kvPairs(self, pairs.operations, pairs.pairs, args.includes('--machine'));
    console.log(`${table([HEADER, ...rows])}\n\n${lines.join('\n')}`);
    return;
  }
  const against = args.indexOf('--small-against');
  if (against >= 0) {
    const dist = args[against + 1];
    if (dist === undefined) {
      console.error('bench:checker: --small-against needs the dist folder of another build (e.g. /tmp/w-c7f/dist)');
      process.exit(3);
    }
    const rounds = Number(args[against + 2] ?? 100);
    if (!Number.isInteger(rounds) || rounds < 1) {
      console.error(
        `bench:checker: --small-against's rounds must be a whole number of at least 1, got ${args[against + 2]}`,
      );
      process.exit(3);
    }
    console.log((await smallAgainst(dist, rounds)).join('\n'));
    return;
  }
  if (args.includes('--threads-cost')) {
    const { rows, lines } = await threadCost(self);
    console.log(`${table([HEADER, ...rows])}\n\n${lines.join('\n')}`);
    return;
  }
  if (args.includes('--acceptance')) {
    const { rows, lines } = await acceptance(self, new Map());
    console.log(`${table([HEADER, ...rows])}\n\n${lines.join('\n')}`);
    return;
  }
  const rows = [HEADER];
  const notes: string[] = [];
  /** The kv cases' states searched, by size and threads: for acceptance (b). */
  const kvStates = new Map<number, Map<number, number>>();
  /** The kv cases' times by size and threads: each size's speed-up is printed. */
  const kvTimes = new Map<number, Map<number, number>>();
  for (const c of cases(args.includes('--quick'))) {
    let m: Measured;
    try {
      m = await runChild(self, c);
    } catch (err) {
      console.error((err as Error).message);
      process.exitCode = 1;
      continue;
    }
    if (c.model === 'kv') {
      kvTimes.set(c.operations, (kvTimes.get(c.operations) ?? new Map()).set(c.threads ?? 1, m.ms));
      kvStates.set(c.operations, (kvStates.get(c.operations) ?? new Map()).set(c.threads ?? 1, m.iterations));
    }
    if (c.files && m.files) {
      for (const [i, f] of c.files.entries())
        rows.push(rowOf(f, (m.files as Measured[])[i], `file ${i + 1}: ${f.model}`));
      rows.push(rowOf({ ...c, operations: c.files.reduce((n, f) => n + f.operations, 0) }, m, 'several files'));
      continue;
    }
    rows.push(rowOf(c, m));
    if (m.valid !== !c.corrupt)
      console.error(`unexpected: ${c.model} ${c.clients} clients ${c.operations} ops: ${m.summary}`);
    else if (c.corrupt) notes.push(`${c.model}, ${c.clients} clients: ${m.summary}`);
  }
  console.log(table(rows));
  const kvSpeedUps = [...kvTimes].flatMap(([ops, t]) => {
    const one = t.get(1);
    const two = t.get(2);
    return one !== undefined && two !== undefined
      ? [`${(one / two).toFixed(2)}x at ${ops.toLocaleString('en-US')} operations`]
      : [];
  });
  if (kvSpeedUps.length > 0)
    console.log(
      `\nkv, two threads against one: ${kvSpeedUps.join(', ')} (goal 1.7x; by default a history under ${MIN_OPERATIONS.toLocaleString('en-US')} operations is checked in one thread)`,
    );
  if (notes.length > 0) console.log(`\nThe falsified histories:\n${notes.map((n) => `  ${n}`).join('\n')}`);
  const issue27 = await acceptance(self, kvStates);
  console.log(`\nIssue 27's acceptance:\n${table([HEADER, ...issue27.rows])}\n\n${issue27.lines.join('\n')}`);
  const issue44 = await threadCost(self);
  console.log(
    `\nIssue 44's thread cost (an invalid key beside a hard one):\n${table([HEADER, ...issue44.rows])}\n\n${issue44.lines.join('\n')}`,
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main();
