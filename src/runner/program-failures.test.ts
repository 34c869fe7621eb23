/**
 * A client program that broke: under a fault (or just after it healed) the library's
 * failure, a counted INVALID result; with no fault near, a condition of the run.
 */
import { describe, expect, it } from 'vitest';
import type { FaultWindow } from '../../checkers/fault-windows.js';
import { countedVerdict } from '../../checkers/result.js';
import { runExitCode, runVerdict } from '../run-data/conditions.js';
import { type BrokenProgram, classifyBrokenPrograms, faultAtBreak } from './program-failures.js';

const S = 1e9; // ns
const TTL_MS = 1000;
const pause: FaultWindow = { f: 'client-pause', value: { client: 2 }, start: 3 * S, end: 4.5 * S };
const kill: FaultWindow = { f: 'kill-node', value: {}, start: 10 * S };
const crashed = (atS: number, sinceS = atS): BrokenProgram => ({
  client: 2,
  why: 'the client program exited with code 1 (stderr: redis.exceptions.ConnectionError: Connection reset by peer)',
  atNs: atS * S,
  sinceNs: sinceS * S,
});
const opts = { ttlMs: TTL_MS, command: 'redis-py-lock' };

describe('a broken client program', () => {
  it('under a fault in effect: the library failed, a counted INVALID result, exit 1', () => {
    const { result, conditions } = classifyBrokenPrograms([crashed(4.2)], [pause], opts);
    expect(conditions).toEqual([]);
    expect(result).toMatchObject({ checker: 'client-program', valid: false, counts: true });
    expect(result?.summary).toBe(
      'the client program (redis-py-lock) of client 2 crashed under client-pause at 4.2 s: exited with code 1 (stderr: redis.exceptions.ConnectionError: Connection reset by peer)',
    );
    const valid = runVerdict(
      countedVerdict([{ checker: 'lost-updates', valid: true, summary: '' }, result!]),
      conditions,
    );
    expect(runExitCode(valid, conditions)).toBe(1);
  });

  it('just after a fault healed, within two TTLs: still the fault', () => {
    expect(faultAtBreak([pause], crashed(4.5 + 1.9), TTL_MS)).toEqual({ window: pause, inEffect: false });
    const { result } = classifyBrokenPrograms([crashed(6.4)], [pause], opts);
    expect(result?.summary).toMatch(/ crashed just after client-pause at 6.4 s: /);
  });

  it('a hang heard of late, whose request began while the fault was in effect: the fault', () => {
    const hung: BrokenProgram = {
      client: 0,
      why: 'no answer to acquire 7 within 7000 ms',
      atNs: 12 * S,
      sinceNs: 4 * S,
    };
    const { result, conditions } = classifyBrokenPrograms([hung], [pause], opts);
    expect(conditions).toEqual([]);
    expect(result?.summary).toMatch(
      /^the client program \(redis-py-lock\) of client 0 hung just after client-pause at 12 s: no answer/,
    );
  });

  it('with no fault near: a condition (not run as configured), exit 3', () => {
    for (const b of [crashed(1), crashed(4.5 + 2.1), crashed(9.9)]) {
      const { result, conditions } = classifyBrokenPrograms([b], [pause, kill], opts);
      expect(result).toBeUndefined();
      expect(conditions).toEqual([expect.objectContaining({ kind: 'client-program-broken' })]);
      expect(runExitCode(runVerdict(true, conditions), conditions)).toBe(3);
    }
  });

  it('a fault never healed covers every break after its start', () => {
    expect(faultAtBreak([kill], crashed(30), TTL_MS)).toEqual({ window: kill, inEffect: true });
  });

  it('a program that broke the protocol or never started, under a fault too: a condition (the adapter, not the library)', () => {
    for (const why of [
      'acquire 4: not JSON: Traceback (most recent call last):',
      'an answer nobody asked for: {}',
      "cannot start 'x': spawn ENOENT",
    ]) {
      const { result, conditions } = classifyBrokenPrograms([{ ...crashed(4), why }], [pause], opts);
      expect(result).toBeUndefined();
      expect(conditions).toHaveLength(1);
    }
  });

  it('before the workload began (no time): a condition', () => {
    const { result, conditions } = classifyBrokenPrograms(
      [{ client: 1, why: 'no answer to init within 30000 ms' }],
      [pause],
      opts,
    );
    expect(result).toBeUndefined();
    expect(conditions).toHaveLength(1);
  });

  it('splits several: those under faults counted, the others conditions', () => {
    const { result, conditions } = classifyBrokenPrograms(
      [crashed(4), { ...crashed(4.1), client: 3 }, { ...crashed(1), client: 4, why: 'acquire 1: not JSON: oops' }],
      [pause],
      opts,
    );
    expect(result?.summary).toMatch(
      /^2 client programs broke under faults; first: the client program \(redis-py-lock\) of client 2 crashed under client-pause at 4 s/,
    );
    expect(result?.details).toMatchObject({ failures: [{ client: 2 }, { client: 3 }] });
    expect(conditions.map((c) => c.message)).toEqual([
      "client 4's program broke (acquire 1: not JSON: oops): the request ended unknown and the client stopped there",
    ]);
  });
});
