/**
 * Parts on worker threads (parallel.ts) against parts in this thread (index.ts): the same
 * verdict, the same counterexample (the first part in check order found not linearizable,
 * whichever thread finished first), the same linearizations. The workers run the compiled
 * checker in dist/ (npm test builds it first).
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { simulateRegister } from '../../perf/simulate.js';
import type { Op } from '../../src/history/op.js';
import { keyedHistory, largeRegisterWithStaleRead, searchOnlyViolation } from '../../test/unit/linearizable-support.js';
import { checkLinearizable, type Prepared, prepare } from './check-linearizable.js';
import { checkLinearizableParallel } from './parallel.js';
import { NO_LIMIT, PART_WORKER, type PartReply, type PartStart, type PartTurn, partTurns } from './part-worker.js';
import { useStepClock, useWallClock } from './search-clock.js';
import { LARGE_PART, precheckAt } from './search-rounds.js';

/** keyedHistory, corrupting by seed. */
const keyed = (model: string, seeds: number[], corrupt: (x: number) => boolean, steps = 600): Op[] =>
  keyedHistory(model, seeds, (seed) => corrupt(seed), steps);

const inThread = (history: Op[], model: string) => checkLinearizable(history, model, { witness: true });
const onWorkers = (history: Op[], model: string) =>
  checkLinearizableParallel(history, model, { witness: true, threads: 2, minOperations: 0 });

/** A register part's first turn, in slices of 4 steps, with no deadline. */
const registerStart = (prepared: Prepared, part: number, limits: Int32Array): PartStart => ({
  model: 'register',
  initial: undefined,
  data: prepared.parts[part].columns,
  deadline: Number.POSITIVE_INFINITY,
  memoryLimitBytes: 2 ** 30,
  baseBytes: 0,
  witness: false,
  precheck: true,
  slice: 4,
  limits,
});

describe('parts on worker threads', () => {
  it('the compiled worker is there (npm test builds it)', () => {
    expect(existsSync(new URL('../../dist/checkers/linearizable/part-worker.js', import.meta.url))).toBe(true);
  });

  it('valid histories: the same verdict and the same linearization of every part', async () => {
    for (const model of ['mutex', 'register', 'kv']) {
      const history = keyed(model, [1, 2, 3, 4, 5, 6], () => false);
      const a = inThread(history, model);
      const b = await onWorkers(history, model);
      expect(b.stats.threads).toBe(2);
      expect(a.stats.threads).toBe(0);
      expect(b.valid).toBe(a.valid);
      expect(b.linearization).toEqual(a.linearization);
      expect(b.stats.iterations).toBe(a.stats.iterations);
    }
  });

  it('several parts not linearizable: the same part and operation reported, every time', async () => {
    let invalid = 0;
    for (let round = 0; round < 6; round++) {
      const seeds = Array.from({ length: 8 }, (_, i) => 10 * round + i + 1);
      // most keys falsified, some found by the search (mutex has no pre-check)
      const history = keyed('mutex', seeds, (seed) => seed % 4 !== 0, 1200);
      const a = inThread(history, 'mutex');
      const b = await onWorkers(history, 'mutex');
      expect(b.stats.threads).toBe(2);
      expect(b.valid).toBe(a.valid);
      expect(b.counterexample).toEqual(a.counterexample);
      if (a.valid === false) invalid++;
    }
    expect(invalid).toBeGreaterThan(3);
  });

  it('this thread and two workers, parts cancelled on every thread: the same answers as one thread', async () => {
    for (let round = 0; round < 4; round++) {
      const seeds = Array.from({ length: 9 }, (_, i) => 100 + 10 * round + i);
      for (const model of ['mutex', 'kv']) {
        const history = keyed(model, seeds, (seed) => seed % 3 === round % 3, 900);
        const a = inThread(history, model);
        const b = await checkLinearizableParallel(history, model, { witness: true, threads: 3, minOperations: 0 });
        expect(b.stats.threads).toBe(3);
        expect(b.valid).toBe(a.valid);
        expect(b.counterexample).toEqual(a.counterexample);
        expect(b.linearization).toEqual(a.linearization);
      }
    }
  });

  it('small histories stay in this thread (no thread start-up)', async () => {
    const history = keyed('register', [1, 2], () => false, 100);
    const r = await checkLinearizableParallel(history, 'register', { threads: 2 });
    expect(r.stats.threads).toBe(0);
    expect(r.valid).toBe(true);
  });

  it('a time budget that runs out: unknown on both paths', async () => {
    const history = keyed('register', [3, 4], () => false, 20_000);
    const b = await checkLinearizableParallel(history, 'register', { threads: 2, minOperations: 0, timeLimitMs: 1 });
    expect(b.stats.threads).toBe(2);
    expect(b.valid).toBe('unknown');
    expect(b.unknown?.budget).toBe('time');
  });

  it('hard parts taken first under a time limit pause: a later part still has its turn, and its violation is found', async () => {
    // Four parts of fifty unique-value writers (no end in sight within the limit), taken
    // first (largest first), then a small part whose violation only the search finds: two
    // concurrent writes, then reads of 1, 2, 1, after plain writes. Unknown before parts paused.
    const hard = (key: string, base: number) =>
      simulateRegister({ clients: 50, operations: 100_000, infoRate: 0.001, seed: 42 }).map((op) => ({
        ...op,
        key,
        process: (op.process as number) + base,
      }));
    const late = searchOnlyViolation('z', 900_000, 20_000);
    const history = [...hard('a', 0), ...hard('b', 100_000), ...hard('c', 200_000), ...hard('d', 300_000), ...late].map(
      (o, index) => ({ ...o, index }),
    );
    // On the step clock (search-clock.ts), shared with the worker: 2000 looks at the clock, about 8M
    // steps of search over both threads, whatever the machine's load.
    useStepClock();
    try {
      const r = await checkLinearizableParallel(history, 'register', { threads: 2, timeLimitMs: 2000 });
      expect(r.stats.threads).toBe(2);
      expect(r.valid).toBe(false);
      expect(r.counterexample?.key).toBe('z');
    } finally {
      useWallClock();
    }
  });

  it('an impossible operation wins over a violation found by search, on small parts and large ones', async () => {
    // Check order, smallest first: 'a' (its violation only the search finds), then the larger
    // 'b', whose stale read the pre-check sees. Small parts are pre-checked before any search;
    // large ones (LARGE_PART) at their first turn, so 'a' is searched and found not
    // linearizable first, and 'b' is pre-checked before the verdict all the same. On two
    // threads the same verdict (b is pre-checked by this thread or by the worker taking it).
    for (const padding of [200, 2 * LARGE_PART + 200]) {
      const a = searchOnlyViolation('a', 0, padding);
      const b = searchOnlyViolation('b', 100, padding + 2000).slice(0, -12);
      b.push(
        { index: 0, type: 'invoke', f: 'write', process: 110, time: 0, key: 'b', value: 7 },
        { index: 0, type: 'ok', f: 'write', process: 110, time: 0, key: 'b', value: 7 },
        { index: 0, type: 'invoke', f: 'write', process: 110, time: 0, key: 'b', value: 8 },
        { index: 0, type: 'ok', f: 'write', process: 110, time: 0, key: 'b', value: 8 },
        { index: 0, type: 'invoke', f: 'read', process: 111, time: 0, key: 'b' },
        { index: 0, type: 'ok', f: 'read', process: 111, time: 0, key: 'b', value: 7 },
      );
      const history = [...a, ...b].map((o, index) => ({ ...o, index }));
      const one = inThread(history, 'register');
      const two = await onWorkers(history, 'register');
      expect(one.valid).toBe(false);
      expect(one.counterexample?.key).toBe('b');
      expect(one.counterexample?.reason).toMatch(/^it needs the register to hold 7/);
      // Large: 'a' was searched (and found not linearizable) before 'b' was pre-checked.
      if (padding > LARGE_PART) expect(one.stats.iterations).toBeGreaterThan(0);
      else expect(one.stats.iterations).toBe(0);
      expect(two.stats.threads).toBe(2);
      expect(two.counterexample).toEqual(one.counterexample);
      expect(two.summary).toBe(one.summary);
    }
  });

  it("a worker searches a part turn by turn, to each turn's end, and stops a part at its shared limit", async () => {
    const prepared = prepare(
      keyed('register', [1, 2], () => false, 300),
      'register',
      {},
      false,
    );
    const worker = new Worker(new URL('../../dist/checkers/linearizable/part-worker.js', import.meta.url), {
      workerData: PART_WORKER,
    });
    const limits = new Int32Array(new SharedArrayBuffer(4 * prepared.parts.length)).fill(NO_LIMIT);
    const start = (part: number) => registerStart(prepared, part, limits);
    const replies: PartReply[] = [];
    let answered = () => {};
    worker.on('message', (reply: PartReply) => {
      replies.push(reply);
      answered();
    });
    const send = (turn: PartTurn) =>
      new Promise<void>((resolve) => {
        answered = resolve;
        worker.postMessage(turn);
      });
    // The two largest parts (check order: smallest first), of more than 10 operations each.
    const [a, b] = [prepared.parts.length - 1, prepared.parts.length - 2];
    expect(prepared.parts[b].size).toBeGreaterThan(10);
    try {
      await send({ part: a, until: 10, start: start(a) });
      await send({ part: a, until: NO_LIMIT });
      Atomics.store(limits, b, 7); // a violation found elsewhere: part b may go 7 steps
      await send({ part: b, until: 100, start: start(b) });
    } finally {
      await worker.terminate();
    }
    // Small parts: pre-checked at their start.
    expect(replies[0]).toEqual({ part: a, steps: 10, prechecked: true });
    expect(replies[1]).toMatchObject({ part: a, outcome: { status: 'linearizable' } });
    expect(replies[2]).toEqual({ part: b, cancelled: 7, prechecked: true });
  });

  it('a turn whose part was cut short after the turn was sent: answered as cut short, not lost', () => {
    const prepared = prepare(
      keyed('register', [1, 2], () => false, 300),
      'register',
      {},
      false,
    );
    const limits = new Int32Array(new SharedArrayBuffer(4 * prepared.parts.length)).fill(NO_LIMIT);
    const start = (part: number) => registerStart(prepared, part, limits);
    const replies: PartReply[] = [];
    const turn = partTurns((r) => replies.push(r));
    const [a, b] = [prepared.parts.length - 1, prepared.parts.length - 2];
    turn({ part: a, until: 10, start: start(a) });
    turn({ part: b, until: 10, start: start(b) });
    // The next turn of a is on its way when a violation elsewhere lowers a's limit below
    // where a stands (parallel.ts's own thread found it meanwhile).
    Atomics.store(limits, a, 5);
    turn({ part: a, until: 20 });
    turn({ part: b, until: NO_LIMIT });
    expect(replies).toEqual([
      { part: a, steps: 10, prechecked: true },
      { part: b, steps: 10, prechecked: true },
      { part: a, cancelled: 10, prechecked: true },
      expect.objectContaining({ part: b, outcome: expect.objectContaining({ status: 'linearizable' }) }),
    ]);
  });
});

describe("a worker's large part", () => {
  it('is pre-checked when its search reaches precheckAt undecided, and its impossible read is the answer there', () => {
    const prepared = prepare(largeRegisterWithStaleRead(), 'register', {}, false);
    const limits = new Int32Array(new SharedArrayBuffer(4)).fill(NO_LIMIT);
    const at = precheckAt(prepared.parts[0].size);
    const replies: PartReply[] = [];
    const turn = partTurns((r) => replies.push(r));
    turn({ part: 0, until: at - 1, start: { ...registerStart(prepared, 0, limits), slice: 1000 } });
    turn({ part: 0, until: NO_LIMIT });
    expect(replies[0]).toEqual({ part: 0, steps: at - 1, prechecked: false });
    expect(replies[1]).toMatchObject({ part: 0, prechecked: true, impossible: { op: prepared.parts[0].size - 1 } });
    expect(replies).toHaveLength(2);
  });
});
