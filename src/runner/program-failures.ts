/**
 * A client program (the client protocol) that crashed, hung or stopped speaking the
 * protocol: the harness's failure, or the library's?
 *
 * A program that breaks while a fault is in effect, or just after one healed (within two
 * TTLs: a library that throws on the Redis error it meets when resumed, or once the
 * node is back), broke because of the fault: that is a finding about the library, as an
 * overlap is. It is a counted checker result, `client-program`, INVALID, named in the
 * verdict and the headline, and the run's exit code is the verdict's. A program that
 * breaks with no fault near stays a condition (not run as configured, exit 3): nothing
 * the test did explains it, so it says nothing about the lock. So does one that broke the
 * protocol (not JSON, a wrong id) or could not start, fault or not: that is the adapter's
 * bug, not the library's behaviour under the fault.
 */
import type { FaultWindow } from '../../checkers/fault-windows.js';
import type { CheckResult } from '../../checkers/result.js';
import { programsBroken, type RunCondition } from '../run-data/conditions.js';
import { plural } from '../util/plural.js';

/** How long after a fault healed a program that breaks still broke of it, in TTLs. */
export const AFTER_HEAL_TTLS = 2;

export interface BrokenProgram {
  client: number;
  /** Why, in one line (process-client.ts's words, the program's stderr with a crash). */
  why: string;
  /** When the runner heard of it (ns since the origin). */
  atNs?: number;
  /**
   * The client's latest operation before (ns since the origin): the program broke between
   * this and atNs (a hang is heard of only once its request timed out).
   */
  sinceNs?: number;
}

export interface ProgramFailure {
  client: number;
  why: string;
  atS: number;
  /** The fault it broke under (or just after), by kind. */
  fault: string;
  /** Whether that fault was still in effect when the break was heard of. */
  inEffect: boolean;
}

/** The fault a program's break falls under: in effect at some time in [since, at], or healed within the grace before. */
export function faultAtBreak(
  windows: readonly FaultWindow[],
  b: BrokenProgram,
  ttlMs: number,
): { window: FaultWindow; inEffect: boolean } | undefined {
  if (b.atNs === undefined) return undefined;
  const at = b.atNs;
  const since = Math.min(b.sinceNs ?? at, at);
  const graceNs = AFTER_HEAL_TTLS * ttlMs * 1e6;
  const near = windows.filter((w) => w.start <= at && (w.end === undefined || w.end + graceNs >= since));
  // One still in effect when heard of names it best; else the one healed last.
  const open = near.find((w) => w.end === undefined || w.end >= at);
  if (open) return { window: open, inEffect: true };
  const last = near.reduce<FaultWindow | undefined>((a, w) => (!a || (w.end ?? 0) > (a.end ?? 0) ? w : a), undefined);
  return last ? { window: last, inEffect: false } : undefined;
}

/** How a program broke, in a verb: crashed (exited, killed) or hung (no answer); undefined for anything else. */
export function breakVerb(why: string): 'crashed' | 'hung' | undefined {
  if (/^the client program (exited with code|was killed by)/.test(why)) return 'crashed';
  if (/^no answer to (acquire|release)/.test(why)) return 'hung';
  return undefined;
}

const secs = (ns: number) => `${Math.round(ns / 1e8) / 10} s`;

/**
 * The broken programs split: those that broke under a fault, as the `client-program`
 * result (undefined when none did), and the others as conditions.
 */
export function classifyBrokenPrograms(
  broken: readonly BrokenProgram[],
  windows: readonly FaultWindow[],
  opts: { ttlMs: number; command: string },
): { result?: CheckResult; conditions: RunCondition[] } {
  const failures: ProgramFailure[] = [];
  const harness: BrokenProgram[] = [];
  for (const b of broken) {
    const found = breakVerb(b.why) ? faultAtBreak(windows, b, opts.ttlMs) : undefined;
    if (!found || b.atNs === undefined) harness.push(b);
    else
      failures.push({
        client: b.client,
        why: b.why,
        atS: b.atNs / 1e9,
        fault: found.window.f,
        inEffect: found.inEffect,
      });
  }
  const conditions = programsBroken(harness);
  const first = failures[0];
  if (!first) return { conditions };
  const when = first.inEffect ? 'under' : 'just after';
  const own = first.why.replace(/^the client program /, '');
  const words = `the client program (${opts.command}) of client ${first.client} ${breakVerb(first.why)} ${when} ${first.fault} at ${secs(first.atS * 1e9)}: ${own}`;
  const summary =
    failures.length === 1 ? words : `${plural(failures.length, 'client program')} broke under faults; first: ${words}`;
  return {
    result: { checker: 'client-program', valid: false, counts: true, summary, details: { failures } },
    conditions,
  };
}
