import { describe, expect, it } from 'vitest';
import { checkEvidence } from '../../checkers/evidence.js';
import { checkFencing } from '../../checkers/fencing.js';
import { checkLostUpdates } from '../../checkers/lost-updates.js';
import { checkMutualExclusion } from '../../checkers/mutual-exclusion.js';
import { type CheckResult, countedVerdict } from '../../checkers/result.js';
import { H } from '../../test/unit/history-builder.js';
import type { Op } from '../history/op.js';
import { type RunCondition, runVerdict } from '../runner/conditions.js';
import { duration, headline } from './headline.js';
import { prepareReport } from './model.js';

const S = 'S';

/** The sentence for a history as a run would check it (results stored as JSON, as the report reads them). */
function sentence(ops: Op[], fenced: boolean, conditions: RunCondition[] = []): string {
  const results = JSON.parse(
    JSON.stringify([
      checkMutualExclusion(ops, { counts: !fenced }),
      checkLostUpdates(ops, S),
      checkFencing(ops, { storeKey: S, fenced }),
      checkEvidence(ops, { writes: true, storeKey: S, fenced }),
    ]),
  ) as CheckResult[];
  const valid = runVerdict(countedVerdict(results), conditions);
  return headline({ valid, fenced, results, conditions }, prepareReport(ops, results));
}

const pause = (h: H, process: number) =>
  h
    .invoke('nemesis', 'start-client-pause')
    .ok('nemesis', 'start-client-pause', undefined, { client: process, process, ms: 1000 });
const resume = (h: H) => h.invoke('nemesis', 'stop-client-pause').ok('nemesis', 'stop-client-pause');
const write = (h: H, p: number, set: number[], token?: number) => {
  const value = token === undefined ? set : [set, token];
  return h.invoke(p, 'write', S, value).ok(p, 'write', S, value);
};
const read = (h: H, set: number[]) => h.invoke(9, 'read', S).ok(9, 'read', S, set);

describe('the report headline', () => {
  it('invalid: names the paused holder, the fault, who acquired, and the adds lost', () => {
    // p0 holds; paused 6 ms; p1 acquires and adds 1; p0 wakes and writes its stale set
    // (dropping 1); p1 writes on from its own (dropping p0's 2).
    const h = new H().acquire(0);
    pause(h, 0).acquire(1);
    write(h, 1, [1]);
    resume(h);
    write(h, 0, [2]).release(1).release(0);
    write(h, 1, [3]);
    write(h, 1, [3, 4]);
    read(h, [3, 4]);
    expect(sentence(h.ops, false)).toBe(
      'Process 0 paused for 6 ms (client-pause) outlived its lease; process 1 acquired; 2 acknowledged adds lost.',
    );
  });

  it('invalid without a fault: says so, and that no add was lost', () => {
    const h = new H().acquire(0).acquire(1).release(0).release(1);
    write(h, 1, [1]);
    read(h, [1]);
    expect(sentence(h.ops, false)).toBe(
      'Process 1 acquired while process 0 still held the lock, with no fault in effect; no acknowledged add lost.',
    );
  });

  it('invalid under a node fault: names it by kind, whom and length', () => {
    const h = new H()
      .invoke('nemesis', 'start-partition')
      .ok('nemesis', 'start-partition', undefined, { shape: 'majority-minority', ms: 2000 })
      .acquire(0)
      .acquire(1)
      .invoke('nemesis', 'stop-partition')
      .ok('nemesis', 'stop-partition')
      .release(0)
      .release(1);
    write(h, 1, [1]);
    read(h, [1]);
    expect(sentence(h.ops, false)).toBe(
      'Process 1 acquired while process 0 still held the lock, during partition (majority-minority, 6 ms); no acknowledged add lost.',
    );
  });

  it('invalid with fencing: the stale token the store accepted, and what it cost', () => {
    // p1 writes with token 2; p0 then gets in with its older token 1, dropping p1's add.
    const h = new H().acquire(0, 1);
    pause(h, 0).acquire(1, 2);
    write(h, 1, [1], 2);
    resume(h);
    write(h, 0, [2], 1).release(1).release(0);
    write(h, 2, [2, 3], 3);
    write(h, 2, [2, 3, 4], 3);
    read(h, [2, 3, 4]);
    expect(sentence(h.ops, true)).toBe(
      'Process 0 paused for 6 ms (client-pause) outlived its lease; process 1 acquired; the store accepted stale token 1 after token 2; 1 acknowledged add lost.',
    );
  });

  it('invalid by a lost add alone: the count first, then the fault', () => {
    // The holds do not overlap, yet p1 writes from a stale set under a pause of process 5.
    const h = new H().acquire(0);
    write(h, 0, [1]).release(0).acquire(1);
    pause(h, 5);
    write(h, 1, [2]);
    resume(h);
    write(h, 1, [2, 3]).release(1);
    read(h, [2, 3]);
    expect(sentence(h.ops, false)).toBe('1 acknowledged add lost, during client-pause (process 5, 4 ms).');
  });

  it('valid fenced: the stale write the store rejected, after its writer paused, and no add lost', () => {
    const h = new H().acquire(0, 16);
    pause(h, 0).acquire(1, 17);
    write(h, 1, [1], 17);
    resume(h);
    h.invoke(0, 'write', S, [[2], 16]).fail(0, 'write', S, [[2], 16], 'stale token');
    h.release(1).release(0);
    write(h, 2, [1, 3], 18);
    write(h, 2, [1, 3, 4], 18);
    read(h, [1, 3, 4]);
    expect(sentence(h.ops, true)).toBe(
      "Process 0's stale write (token 16) was rejected by the store after it paused 6 ms (client-pause); no acknowledged add lost.",
    );
  });

  it('valid fenced: counts the other stale writes rejected after the first', () => {
    const h = new H().acquire(0, 16);
    pause(h, 0).acquire(1, 17);
    write(h, 1, [1], 17);
    resume(h);
    h.invoke(0, 'write', S, [[2], 16]).fail(0, 'write', S, [[2], 16], 'stale token');
    h.invoke(0, 'write', S, [[3], 16]).fail(0, 'write', S, [[3], 16], 'stale token');
    h.release(1).release(0);
    write(h, 2, [1, 4], 18);
    write(h, 2, [1, 4, 5], 18);
    read(h, [1, 4, 5]);
    expect(sentence(h.ops, true)).toBe(
      "Process 0's stale write (token 16) was rejected by the store after it paused 6 ms (client-pause); 1 more stale write rejected; no acknowledged add lost.",
    );
  });

  it('valid with no fault: no overlap, and every add kept', () => {
    const h = new H().acquire(0);
    write(h, 0, [1]).release(0).acquire(1);
    write(h, 1, [1, 2]);
    write(h, 1, [1, 2, 3]).release(1);
    read(h, [1, 2, 3]);
    expect(sentence(h.ops, false)).toBe(
      'No two of 2 holds overlapped with no fault injected; all 3 acknowledged adds kept.',
    );
  });

  it('valid through faults: counts them by kind', () => {
    const h = new H().acquire(0);
    pause(h, 3);
    write(h, 0, [1]);
    resume(h);
    write(h, 0, [1, 2]);
    write(h, 0, [1, 2, 3]).release(0).acquire(1).release(1);
    read(h, [1, 2, 3]);
    expect(sentence(h.ops, false)).toBe(
      'No two of 2 holds overlapped through 1 client-pause fault; all 3 acknowledged adds kept.',
    );
  });

  it('unknown: says which evidence was missing', () => {
    const h = new H()
      .invoke(0, 'acquire', 'L')
      .fail(0, 'acquire', 'L', undefined, 'busy')
      .invoke(1, 'acquire', 'L')
      .info(1, 'acquire', 'L');
    expect(sentence(h.ops, false)).toMatch(
      /^Too little evidence to judge: only 0 of 2 acquires granted \(1 failed, 1 timed out or unknown\); at least 2 grants are needed .*; no successful read of the store: what it kept cannot be told\.$/,
    );
  });

  it('not as configured: names the conditions, and does not claim a pass', () => {
    const h = new H().acquire(0);
    write(h, 0, [1]);
    write(h, 0, [1, 2]);
    write(h, 0, [1, 2, 3]).release(0).acquire(1).release(1);
    read(h, [1, 2, 3]);
    const interrupted: RunCondition = { kind: 'interrupted', message: 'interrupted (SIGINT) at 2.7 s of 20 s' };
    expect(sentence(h.ops, false, [interrupted])).toBe(
      'Not run as configured: interrupted (SIGINT) at 2.7 s of 20 s; no violation in what did run, which is not evidence for this configuration.',
    );
  });

  it('writes lengths as a reader would', () => {
    expect(duration(6)).toBe('6 ms');
    expect(duration(1490.4)).toBe('1.49 s');
  });
});
