import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEvidence } from '../../checkers/evidence.js';
import { checkFencing } from '../../checkers/fencing.js';
import { checkLostUpdates } from '../../checkers/lost-updates.js';
import { checkMutualExclusion } from '../../checkers/mutual-exclusion.js';
import { type CheckResult, countedVerdict } from '../../checkers/result.js';
import { H } from '../../test/unit/history-builder.js';
import type { Op } from '../history/op.js';
import { type RunCondition, runVerdict } from '../run-data/conditions.js';
import { packageRoot } from '../util/paths.js';
import { duration, headline } from './headline.js';
import { prepareReport } from './report-data.js';

const S = 'S';

/** The sentence for a history as a run would check it (results stored as JSON, as the report reads them). */
function sentence(ops: Op[], fencing: boolean, conditions: RunCondition[] = []): string {
  const results = JSON.parse(
    JSON.stringify([
      checkMutualExclusion(ops, { counts: !fencing }),
      checkLostUpdates(ops, S),
      checkFencing(ops, { storeKey: S, fencing }),
      checkEvidence(ops, { writes: true, storeKey: S, fencing }),
    ]),
  ) as CheckResult[];
  const valid = runVerdict(countedVerdict(results), conditions);
  return headline({ valid, fencing, results, conditions }, prepareReport(ops, results));
}

/** One step of a history: what happens next, on the builder. */
type Step = (h: H) => H;
const history = (steps: readonly Step[]): Op[] => steps.reduce((h, step) => step(h), new H()).ops;

function acquire(p: number, token?: number): Step {
  return (h) => h.acquire(p, token);
}
function release(p: number): Step {
  return (h) => h.release(p);
}
function write(p: number, set: number[], token?: number): Step {
  const value = token === undefined ? set : [set, token];
  return (h) => h.invoke(p, 'write', S, value).ok(p, 'write', S, value);
}
function staleWrite(p: number, set: number[], token: number): Step {
  return (h) => h.invoke(p, 'write', S, [set, token]).fail(p, 'write', S, [set, token], 'stale token');
}
function read(set: number[]): Step {
  return (h) => h.invoke(9, 'read', S).ok(9, 'read', S, set);
}
/** A fault's start, as the nemesis records it. */
function start(kind: string, value: object): Step {
  return (h) => h.invoke('nemesis', `start-${kind}`).ok('nemesis', `start-${kind}`, undefined, value);
}
function stop(kind: string, value?: object): Step {
  return (h) => h.invoke('nemesis', `stop-${kind}`).ok('nemesis', `stop-${kind}`, undefined, value);
}
const pause = (process: number) => start('client-pause', { client: process, process, ms: 1000 });
const resume = stop('client-pause');

/**
 * Process 1's release, its request caught on the wire (at, mode), ends after process 4
 * acquired; then `next` acquires (answeredLate: a moment before the release's answer is on
 * the record, as a delete that landed first can be answered).
 */
const lateRelease = (at: string, mode: string, next: number, answeredLate = false, held?: object): Op[] => {
  const answered: Step = (h) => h.ok(1, 'release', 'L');
  return history([
    acquire(1),
    (h) => h.invoke(1, 'release', 'L'),
    start('wire', { client: 1, process: 1, at, mode, ms: 1500 }),
    acquire(4),
    stop('wire', held),
    ...(answeredLate ? [acquire(next), answered] : [answered, acquire(next)]),
    release(4),
    release(next),
  ]);
};

/** Process 2's acquire, caught by a fault (kind, how) while process 3 acquires (grant3), answers ok after it (grant2). */
const caughtInAcquire = (kind: string, how: object, grant3: object = {}, grant2: object = {}): Op[] =>
  history([
    (h) => h.invoke(2, 'acquire', 'L'),
    start(kind, { client: 2, process: 2, ms: 1500, ...how }),
    (h) => h.invoke(3, 'acquire', 'L').ok(3, 'acquire', 'L', grant3),
    stop(kind),
    (h) => h.ok(2, 'acquire', 'L', grant2),
    release(3),
    release(2),
  ]);

/** Process 0 holds and is paused; process 1 acquires and adds 1; process 0 wakes (tokens: each grant's). */
const overtaken = (token0?: number, token1?: number): Step[] => [
  acquire(0, token0),
  pause(0),
  acquire(1, token1),
  write(1, [1], token1),
  resume,
];

/** Both release; then process p adds on in two writes (token: its grant's), and the store is read. */
const bothReleaseThenAdds = (p: number, first: number[], then: number[], token?: number): Step[] => [
  release(1),
  release(0),
  write(p, first, token),
  write(p, then, token),
  read(then),
];

/** Process 0 adds 2 and 3 to its [1] and releases; process 1 holds the lock once; all three adds are read. */
const addsThenHandsOver: Step[] = [
  write(0, [1, 2]),
  write(0, [1, 2, 3]),
  release(0),
  acquire(1),
  release(1),
  read([1, 2, 3]),
];

/** Process 4's write lands before its pause; process 2 acquires meanwhile: an overlap that lost nothing. */
const landedBeforeItsPause: Step[] = [
  acquire(4),
  write(4, [1]),
  pause(4),
  acquire(2),
  write(2, [1, 2]),
  release(2),
  resume,
  release(4),
];

interface Case {
  title: string;
  steps: Step[];
  fencing: boolean;
  conditions?: RunCondition[];
  says: string;
}

describe('the report headline', () => {
  it.each<Case>([
    {
      title: 'invalid: names the paused holder, the fault, who acquired, and the adds lost',
      // Paused 6 ms, p0 wakes and writes its stale set (dropping 1); p1 writes on from its
      // own (dropping p0's 2).
      steps: [...overtaken(), write(0, [2]), ...bothReleaseThenAdds(1, [3], [3, 4])],
      fencing: false,
      says: 'Process 0 paused for 6 ms (client-pause) outlived its lease; process 1 acquired; 2 acknowledged adds lost.',
    },
    {
      title: 'invalid: ties the lost adds to the pause they came from, not to the first overlap',
      // Process 4's write lands before its pause (process 2 acquires meanwhile: an overlap,
      // no loss). Later process 1, having read [1, 2], is paused; process 3 adds 3 and 4;
      // process 1 wakes and writes its stale set, dropping both.
      steps: [
        ...landedBeforeItsPause,
        acquire(1),
        pause(1),
        acquire(3),
        write(3, [1, 2, 3]),
        write(3, [1, 2, 3, 4]),
        release(3),
        resume,
        write(1, [1, 2, 5]),
        release(1),
        read([1, 2, 5]),
      ],
      fencing: false,
      says: 'Process 1 paused for 10 ms (client-pause) outlived its lease; process 3 acquired; 2 acknowledged adds lost.',
    },
    {
      title: 'invalid: a loss whose pause no placed overlap shows is said after the count',
      // As above, but process 1's hold and process 3's do not overlap: process 1 wrote from
      // a set read in its earlier hold.
      steps: [
        ...landedBeforeItsPause,
        pause(1),
        acquire(3),
        write(3, [1, 2, 3]),
        release(3),
        resume,
        acquire(1),
        write(1, [1, 2, 5]),
        release(1),
        read([1, 2, 5]),
      ],
      fencing: false,
      says: 'Process 4 paused for 8 ms (client-pause) outlived its lease; process 2 acquired; 1 acknowledged add lost after process 1 paused for 8 ms (client-pause).',
    },
    {
      title: 'invalid without a fault: says so, and that no add was lost',
      steps: [acquire(0), acquire(1), release(0), release(1), write(1, [1]), read([1])],
      fencing: false,
      says: 'Process 1 acquired while process 0 still held the lock, with no fault in effect; no acknowledged add lost.',
    },
    {
      title: 'invalid under a node fault: names it by kind, whom and length',
      steps: [
        start('partition', { shape: 'majority-minority', ms: 2000 }),
        acquire(0),
        acquire(1),
        stop('partition'),
        release(0),
        release(1),
        write(1, [1]),
        read([1]),
      ],
      fencing: false,
      says: 'Process 1 acquired while process 0 still held the lock, during partition (majority-minority, 6 ms); no acknowledged add lost.',
    },
    {
      title: 'invalid with fencing: the stale token the store accepted, and what it cost',
      // p1 writes with token 2; p0 then gets in with its older token 1, dropping p1's add.
      steps: [...overtaken(1, 2), write(0, [2], 1), ...bothReleaseThenAdds(2, [2, 3], [2, 3, 4], 3)],
      fencing: true,
      says: 'Process 0 paused for 6 ms (client-pause) outlived its lease; process 1 acquired; the store accepted stale token 1 after token 2; 1 acknowledged add lost.',
    },
    {
      title: 'invalid by a lost add alone: the count first, then the fault',
      // The holds do not overlap, yet p1 writes from a stale set under a pause of process 5.
      steps: [
        acquire(0),
        write(0, [1]),
        release(0),
        acquire(1),
        pause(5),
        write(1, [2]),
        resume,
        write(1, [2, 3]),
        release(1),
        read([2, 3]),
      ],
      fencing: false,
      says: '1 acknowledged add lost, during client-pause (process 5, 4 ms).',
    },
    {
      title: 'valid fenced: the stale write the store rejected, after its writer paused, and no add lost',
      steps: [...overtaken(16, 17), staleWrite(0, [2], 16), ...bothReleaseThenAdds(2, [1, 3], [1, 3, 4], 18)],
      fencing: true,
      says: "Process 0's stale write (token 16) was rejected by the store after it paused 6 ms (client-pause); no acknowledged add lost.",
    },
    {
      title: 'valid fenced: counts the other stale writes rejected after the first',
      steps: [
        ...overtaken(16, 17),
        staleWrite(0, [2], 16),
        staleWrite(0, [3], 16),
        ...bothReleaseThenAdds(2, [1, 4], [1, 4, 5], 18),
      ],
      fencing: true,
      says: "Process 0's stale write (token 16) was rejected by the store after it paused 6 ms (client-pause); 1 more stale write rejected; no acknowledged add lost.",
    },
    {
      title: 'valid with no fault: no overlap, and every add kept',
      steps: [
        acquire(0),
        write(0, [1]),
        release(0),
        acquire(1),
        write(1, [1, 2]),
        write(1, [1, 2, 3]),
        release(1),
        read([1, 2, 3]),
      ],
      fencing: false,
      says: 'No two of 2 holds overlapped with no fault injected; all 3 acknowledged adds kept.',
    },
    {
      title: 'valid through faults: counts them by kind',
      steps: [acquire(0), pause(3), write(0, [1]), resume, ...addsThenHandsOver],
      fencing: false,
      says: 'No two of 2 holds overlapped through 1 client-pause fault; all 3 acknowledged adds kept.',
    },
    {
      title: 'not as configured: names the conditions, and does not claim a pass',
      steps: [acquire(0), write(0, [1]), ...addsThenHandsOver],
      fencing: false,
      conditions: [{ kind: 'interrupted', message: 'interrupted (SIGINT) at 2.7 s of 20 s' }],
      says: 'Not run as configured: interrupted (SIGINT) at 2.7 s of 20 s; no violation in what did run, which is not evidence for this configuration.',
    },
  ])('$title', ({ steps, fencing, conditions, says }) => {
    expect(sentence(history(steps), fencing, conditions)).toBe(says);
  });

  it("a client program that broke under a fault: named as the library's failure, beside the data's fate", () => {
    const ops = history([acquire(0), pause(0), resume, write(0, [1]), release(0), acquire(1), release(1), read([1])]);
    const checked = [checkLostUpdates(ops, S), checkEvidence(ops, { writes: true, storeKey: S, fencing: false })];
    const program: CheckResult = {
      checker: 'client-program',
      valid: false,
      counts: true,
      summary: 'the client program (redis-py-lock) of client 2 crashed under client-pause at 4.2 s: exited with code 1',
    };
    const results = JSON.parse(JSON.stringify([...checked, program])) as CheckResult[];
    const valid = runVerdict(countedVerdict(results), []);
    expect(valid).toBe(false);
    expect(headline({ valid, fencing: false, results, conditions: [] }, prepareReport(ops, results))).toBe(
      'The client program (redis-py-lock) of client 2 crashed under client-pause at 4.2 s: exited with code 1; no acknowledged add lost.',
    );
    // Beside an overlap, said after it.
    const overlapping = history([...overtaken(), write(0, [2]), ...bothReleaseThenAdds(1, [3], [3, 4])]);
    const all = JSON.parse(
      JSON.stringify([checkMutualExclusion(overlapping, { counts: true }), checkLostUpdates(overlapping, S), program]),
    ) as CheckResult[];
    expect(
      headline({ valid: false, fencing: false, results: all, conditions: [] }, prepareReport(overlapping, all)),
    ).toBe(
      'Process 0 paused for 6 ms (client-pause) outlived its lease; process 1 acquired; 2 acknowledged adds lost; the client program (redis-py-lock) of client 2 crashed under client-pause at 4.2 s: exited with code 1.',
    );
  });

  it("picks no checker by name: a checker's declared words say whether it speaks for what failed", () => {
    const program: CheckResult = { checker: 'client-program', valid: false, counts: true, summary: 'it crashed' };
    const other: CheckResult = {
      checker: 'linearizable(mutex)',
      valid: false,
      counts: true,
      summary: 'not linearizable',
    };
    const placed = prepareReport([], [program, other]).violations;
    expect(placed.map((v) => [v.checker, v.ownWords])).toEqual([
      ['client-program', true],
      ['linearizable(mutex)', undefined],
    ]);
    const source = readFileSync(join(packageRoot, 'src', 'report', 'headline.ts'), 'utf8');
    expect(source).not.toMatch(/\.checker === '/);
  });

  it('names a release held on the wire by what it did: the request, its landing, whose lock it deleted', () => {
    // redis-lock 1.0.0: process 1's DEL (no ownership check) held while its lease ran out;
    // process 4 acquired; the DEL landed and deleted process 4's lock; process 5 acquired.
    expect(sentence(lateRelease('wire:DEL', 'pause', 5), false)).toMatch(
      /^Process 1's DEL, held [\d.]+ m?s \(wire pause\) as it released, landed after its lease had run out and deleted process 4's lock; process 5 acquired while process 4 still held it/,
    );
  });

  it("says how long the hit kept its client, not how long the fault waited: its stop record's heldMs", () => {
    const held = { client: 1, heldMs: 926, until: 'another client held the lock' };
    expect(sentence(lateRelease('wire:DEL', 'pause', 5, false, held), false)).toMatch(
      /^Process 1's DEL, held 926 ms \(wire pause\) as it released/,
    );
  });

  it('gives a dropped request its window: it held no client, so its stop record says 0 ms', () => {
    const dropped = { client: 1, heldMs: 0, until: 'dropped' };
    const words = sentence(lateRelease('wire:DEL', 'pause', 5, false, dropped), false);
    expect(words).toMatch(/^Process 1's DEL, held [\d.]+ m?s \(wire pause\) as it released/);
    expect(words).not.toMatch(/held 0 ms/);
  });

  it('names a token taken on the wire after the grant: a separate request, and a larger token than the holder', () => {
    // simple-redis-mutex 3.0.0: process 2 won the lock, then asked INCR for its token; the
    // INCR was held while process 3 acquired (token 5); it landed with 6, outranking 3.
    const ops = caughtInAcquire(
      'wire',
      { at: 'wire:INCR', mode: 'pause' },
      { token: 5, validityMs: 60_000 },
      { token: 6 },
    );
    expect(sentence(ops, true)).toMatch(
      /^Process 2 took its token after its grant, in a separate request \(its INCR, held [\d.]+ m?s \(wire pause\)\), and got one larger than the holder's: token 6 over process 3's 5/,
    );
  });

  it('names an extension that failed while its holder went on writing: the holder was not told', () => {
    // A library whose auto-extension failed (NOSCRIPT) and was only logged: its holder wrote
    // on after process 1 was granted the lock its lease no longer held.
    const ops = history([
      (h) => h.invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', { validityMs: 3 }),
      (h) => h.invoke(0, 'extend', 'L').fail(0, 'extend', 'L', undefined, 'NOSCRIPT'),
      (h) => h.invoke(1, 'acquire', 'L').ok(1, 'acquire', 'L', { validityMs: 3 }),
      write(1, [1]),
      write(0, [2]),
      release(1),
      release(0),
      read([2]),
    ]);
    expect(sentence(ops, false)).toMatch(
      /^Process 0's extension failed at [\d.]+ s \(NOSCRIPT\) and the holder was not told: it went on holding the lock and wrote at [\d.]+ s; process 1 acquired while process 0 still held it/,
    );
  });

  it('names extensions that stopped coming, their lease run out, while the holder wrote on; a paused holder is the pause', () => {
    // Extended at 4 ms for 2 ms, then no more: the lease ran out at 6 ms; process 1 was
    // granted at 8 ms, and process 0 wrote at 9 ms.
    const steps: Step[] = [
      (h) => h.invoke(0, 'acquire', 'L').ok(0, 'acquire', 'L', { validityMs: 3 }),
      (h) => h.invoke(0, 'extend', 'L').ok(0, 'extend', 'L', { validityMs: 2 }),
      (h) => h.invoke(0, 'read', S).ok(0, 'read', S, []),
      (h) => h.invoke(1, 'acquire', 'L').ok(1, 'acquire', 'L', { validityMs: 3 }),
      write(0, [2]),
      release(1),
      release(0),
    ];
    expect(sentence(history(steps), false)).toMatch(
      /^Process 0's extensions stopped at [\d.]+ s \(its lease ran out at [\d.]+ s\) and the holder was not told: it went on holding the lock and wrote at [\d.]+ s; process 1 acquired while process 0 still held it/,
    );
    const [grant, extended, ...rest] = steps as [Step, Step, ...Step[]];
    expect(sentence(history([grant, extended, pause(0), ...rest, resume]), false)).toMatch(
      /^Process 0 paused for .* \(client-pause\) outlived its lease; process 1 acquired/,
    );
  });

  it('names a release whose dropped request the library followed with another: its release went on and deleted the next lock', () => {
    // retrylock: process 1's compare-and-delete dropped; a second later its retry, a plain
    // DEL, deleted process 4's lock, and process 1 itself acquired next.
    expect(sentence(lateRelease('wire:EVAL', 'drop', 1), false)).toMatch(
      /^Process 1's release, its EVAL dropped on the wire \(wire drop\), went on for [\d.]+ m?s and ended after its lease had run out, deleting process 4's lock; process 1 acquired while process 4 still held it/,
    );
    // Process 3 acquired as the DEL landed, a moment before the release's answer was recorded.
    expect(sentence(lateRelease('wire:EVAL', 'drop', 3, true), false)).toMatch(
      /^Process 1's release, its EVAL dropped on the wire \(wire drop\), went on for [\d.]+ m?s and ended after its lease had run out, deleting process 4's lock; process 3 acquired while process 4 still held it/,
    );
  });

  it("names a dropped release's retry answered after the holder began releasing, its own release finding the lock gone", () => {
    // Seen on retrylock: process 1's retried DEL landed while process 4 held (process 3 was
    // granted), and was answered just after process 4 sent its release, "no longer ours".
    const ops = history([
      acquire(1),
      (h) => h.invoke(1, 'release', 'L'),
      start('wire', { client: 1, process: 1, at: 'wire:EVAL', mode: 'drop', ms: 1500 }),
      acquire(4),
      acquire(3),
      (h) => h.invoke(4, 'release', 'L'),
      (h) => h.ok(1, 'release', 'L'),
      (h) => h.fail(4, 'release', 'L', undefined, 'the lock was no longer ours'),
      stop('wire', { client: 1, heldMs: 0, until: 'dropped' }),
      release(3),
    ]);
    expect(sentence(ops, false)).toMatch(
      /^Process 1's release, its EVAL dropped on the wire \(wire drop\), went on for [\d.]+ m?s and ended after its lease had run out, deleting process 4's lock; process 3 acquired while process 4 still held it/,
    );
  });

  it("names a dropped release's retry answered a moment before the next holder's grant was, its release finding the lock gone", () => {
    // Seen on retrylock (seed 30): process 1's retried DEL was answered just before process
    // 4's acquire (its SET landed first) was; process 3 acquired while process 4 held.
    const ops = history([
      acquire(1),
      (h) => h.invoke(1, 'release', 'L'),
      start('wire', { client: 1, process: 1, at: 'wire:EVAL', mode: 'drop', ms: 1500 }),
      stop('wire', { client: 1, heldMs: 0, until: 'dropped' }),
      (h) => h.invoke(4, 'acquire', 'L'),
      (h) => h.ok(1, 'release', 'L'),
      (h) => h.ok(4, 'acquire', 'L', {}),
      acquire(3),
      (h) => h.invoke(4, 'release', 'L'),
      (h) => h.fail(4, 'release', 'L', undefined, 'the lock was no longer ours'),
      release(3),
    ]);
    expect(sentence(ops, false)).toMatch(
      /^Process 1's release, its EVAL dropped on the wire \(wire drop\), went on for [\d.]+ m?s and ended after its lease had run out, deleting process 4's lock; process 3 acquired while process 4 still held it/,
    );
  });

  it('names an acquire that went on after a pause inside it as if the lock were still its own', () => {
    // renewlock: process 2 won the lock and paused before it extended; process 3 acquired;
    // process 2's PEXPIRE renewed process 3's key, and its acquire answered ok.
    expect(sentence(caughtInAcquire('client-pause', { at: 'in-extend' }), false)).toMatch(
      /^Process 2 was stopped inside its acquire \(client-pause at in-extend, [\d.]+ m?s\) until process 3 had the lock, and went on: its acquire answered ok, as if the lock were still its own, while process 3 held it/,
    );
    // A wire stop let its request land before the handover: a holder stopped past its lease.
    const stopped = caughtInAcquire('wire', { at: 'wire:SET', mode: 'stop' });
    expect(sentence(stopped, false)).not.toMatch(/as if the lock were still its own/);
  });

  it('unknown: says which evidence was missing', () => {
    const ops = history([
      (h) => h.invoke(0, 'acquire', 'L').fail(0, 'acquire', 'L', undefined, 'busy'),
      (h) => h.invoke(1, 'acquire', 'L').info(1, 'acquire', 'L'),
    ]);
    expect(sentence(ops, false)).toMatch(
      /^Too little evidence to judge: only 0 of 2 acquires granted \(1 failed, 1 timed out or unknown\); at least 2 grants are needed .*; no successful read of the store: what it kept cannot be told\.$/,
    );
  });

  it('writes lengths as a reader would', () => {
    expect(duration(6)).toBe('6 ms');
    expect(duration(1490.4)).toBe('1.49 s');
  });
});
