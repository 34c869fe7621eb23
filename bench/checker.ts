/**
 * How fast the linearizability checker is, and how much memory it takes, on histories like
 * a real test's: concurrent clients against a real linearizable object (a register, a
 * mutex), some of them crashing (info), generated from a seeded PRNG; and on a few of them
 * falsified in the middle (a stale read, a second holder), which must come out invalid.
 *
 *     npm run bench:checker                 the table
 *     node dist/bench/checker.js --quick    without the 100k- and 1M-operation cases
 *     node dist/bench/checker.js --kv 300000 [pairs]
 *                                           kv over 10 keys on one thread, then on two,
 *                                           back to back, 3 pairs (or `pairs`): each
 *                                           pair's speed-up, then the median and spread
 *
 * Also: Jepsen's register tests (five values, so thousands of writers each), Porcupine's
 * key-partitioned kv tests (10 keys, 50 clients) in one thread and on two, at 100k and 1M
 * operations (where a second thread pays, see parallel.ts), a 1M-operation
 * register history, and several files checked in one process, the hardest first (each its
 * own budget and verdict). Each case runs in a fresh child process, so that peak RSS is the
 * case's own; "peak budget" is the check's own count of its memory, what --memory-limit
 * weighs (the largest part's search).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { checkLinearizableParallel, MIN_OPERATIONS } from '../checkers/linearizable/parallel.js';
import type { Op } from '../src/history/op.js';
import { Rng } from '../src/util/rng.js';

interface SimulationOptions {
  clients: number;
  /** Operations (invocations) to generate. */
  operations: number;
  /** Share of operations that end as info (half of them took effect, half did not). */
  infoRate: number;
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
      c.crash = random() < options.infoRate;
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
function simulateMutex(options: SimulationOptions): Op[] {
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
  // a read that returns the value of a write fifty writes back: a stale read
  const writes = history.slice(0, middle).filter((op) => op.type === 'ok' && op.f === 'write');
  const victim = history.slice(middle).find((op) => op.type === 'ok' && op.f === 'read');
  if (victim && writes.length >= 50) victim.value = writes[writes.length - 50].value;
}

interface Measured {
  valid: unknown;
  events: number;
  ms: number;
  /** The check's own count of its memory (reading excluded here: histories are generated). */
  peakBudgetMiB: number;
  peakRssMiB: number;
  cacheEntries: number;
  threads: number;
  summary: string;
  /** For several files: each one's. */
  files?: Measured[];
}

function history(c: Case): Op[] {
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
    threads: result.stats.threads,
    summary: result.summary,
  };
}

/** --kv OPS [PAIRS]: the kv case on one thread and on two, back to back, pair after pair. */
function kvCases(args: string[]): Case[] | undefined {
  const at = args.indexOf('--kv');
  if (at < 0) return undefined;
  const operations = Number(args[at + 1]);
  const pairs = Number(args[at + 2] ?? 3);
  const kv = (threads: number): Case => ({
    model: 'kv',
    clients: 50,
    operations,
    infoRate: 0.001,
    keys: 10,
    threads,
    seed: 42,
  });
  return Array.from({ length: pairs }, () => [kv(1), kv(2)]).flat();
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
  // Porcupine's kv tests: 10 keys, 50 clients, get/put/append; in this thread, then on 2
  // threads; and a 1M-operation one, where a second thread pays (see parallel.ts).
  for (const operations of quick ? [big] : [big, 1_000_000])
    for (const threads of [1, 2])
      out.push({ model: 'kv', clients: 50, operations, infoRate: 0.001, keys: 10, threads, seed: 42 });
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

function main(): void {
  const args = process.argv.slice(2);
  const caseArg = args.indexOf('--case');
  if (caseArg >= 0) {
    void runCase(JSON.parse(args[caseArg + 1]) as Case).then((m) => process.stdout.write(JSON.stringify(m)));
    return;
  }
  const self = fileURLToPath(import.meta.url);
  const rows = [
    [
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
    ],
  ];
  const notes: string[] = [];
  console.log(`checker benchmark, node ${process.version}, each case in its own process\n`);
  const kvPairs = kvCases(args);
  const times: number[] = [];
  /** The kv cases' times by size, one thread then two: each size's speed-up is printed. */
  const kvTimes = new Map<number, number[]>();
  for (const c of kvPairs ?? cases(args.includes('--quick'))) {
    const child = spawnSync(process.execPath, [self, '--case', JSON.stringify(c)], {
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    if (child.status !== 0) {
      console.error(`case ${JSON.stringify(c)} failed:\n${child.stderr}`);
      process.exitCode = 1;
      continue;
    }
    const m = JSON.parse(child.stdout) as Measured;
    times.push(m.ms);
    if (c.model === 'kv' && !kvPairs) kvTimes.set(c.operations, [...(kvTimes.get(c.operations) ?? []), m.ms]);
    const row = (c: Case, m: Measured, label?: string) =>
      rows.push([
        label ?? c.model,
        c.corrupt
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
      ]);
    if (c.files && m.files) {
      for (const [i, f] of c.files.entries()) row(f, (m.files as Measured[])[i], `file ${i + 1}: ${f.model}`);
      row({ ...c, operations: c.files.reduce((n, f) => n + f.operations, 0) }, m, 'several files');
      continue;
    }
    row(c, m);
    if (m.valid !== !c.corrupt)
      console.error(`unexpected: ${c.model} ${c.clients} clients ${c.operations} ops: ${m.summary}`);
    else if (c.corrupt) notes.push(`${c.model}, ${c.clients} clients: ${m.summary}`);
  }
  console.log(table(rows));
  const kvSpeedUps = [...kvTimes].filter(([, t]) => t.length === 2);
  if (kvSpeedUps.length > 0)
    console.log(
      `\nkv, two threads against one: ${kvSpeedUps.map(([ops, [one, two]]) => `${(one / two).toFixed(2)}x at ${ops.toLocaleString('en-US')} operations`).join(', ')} (goal 1.7x; by default a history under ${MIN_OPERATIONS.toLocaleString('en-US')} operations is checked in one thread)`,
    );
  if (kvPairs) {
    // The machine's other load comes and goes: each pair ran back to back.
    const speedUps = [];
    for (let i = 0; i + 1 < times.length; i += 2) speedUps.push(times[i] / times[i + 1]);
    const sorted = [...speedUps].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    console.log(
      `\ntwo threads against one, per pair: ${speedUps.map((x) => `${x.toFixed(2)}x`).join(', ')}; median ${median?.toFixed(2)}x (goal 1.7x)`,
    );
  }
  if (notes.length > 0) console.log(`\nThe falsified histories:\n${notes.map((n) => `  ${n}`).join('\n')}`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
