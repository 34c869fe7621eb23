/**
 * A hold's lease: how long the lock stood for its holder. It runs from the grant for the
 * grant's validity, and each extension the holder's library made on its own (a client
 * program's `extended`, recorded as an `extend` op: op-values.ts) starts it again, for the
 * extension's validity, from the moment it was reported. A lease is dated from its last
 * extension, not from the acquire: a library that renews every third of its TTL holds the
 * lock rightly long past the grant's validity.
 */
import type { Op } from '../src/history/op.js';
import { pairLeniently } from '../src/history/pairs.js';
import type { Hold } from './hold.js';
import { decodeGrant } from './op-values.js';

/** One start of a hold's lease: its grant, or an extension. Times in ns since the origin. */
export interface Renewal {
  time: number;
  validityMs: number;
  /** The op that made it: the acquire's ok, or the extend's completion. */
  index: number;
  extension: boolean;
}

/** An extension a client reported, by its completion: ok (with its validity) or failed (with the library's words). */
export interface ReportedExtension {
  process: number;
  time: number;
  index: number;
  /** Undefined for a failed one. */
  validityMs?: number;
  error?: string;
}

/** The extensions of each history (made again if it has grown): shared, so read-only. */
const made = new WeakMap<readonly Op[], { length: number; byProcess: Map<number, ReportedExtension[]> }>();

/** Every extension the clients reported, by process, in history order. */
export function extensionsOf(history: readonly Op[]): ReadonlyMap<number, readonly ReportedExtension[]> {
  const kept = made.get(history);
  if (kept && kept.length === history.length) return kept.byProcess;
  const byProcess = new Map<number, ReportedExtension[]>();
  for (const { invoke, completion } of pairLeniently(history)) {
    if (invoke.f !== 'extend' || !completion || completion.type === 'info') continue;
    const process = invoke.process as number;
    const e: ReportedExtension = { process, time: completion.time, index: completion.index };
    if (completion.type === 'ok') {
      const { validityMs } = decodeGrant(completion.value);
      // An ok without a validity says nothing of how long the lease lasts.
      if (validityMs === undefined) continue;
      e.validityMs = validityMs;
    } else e.error = completion.error ?? 'no error given';
    const list = byProcess.get(process);
    if (list) list.push(e);
    else byProcess.set(process, [e]);
  }
  made.set(history, { length: history.length, byProcess });
  return byProcess;
}

/** The extensions reported inside a hold, up to `until` (ns; the hold's end at most), ok and failed. */
export function extensionsIn(history: readonly Op[], hold: Hold, until = hold.end): ReportedExtension[] {
  const to = Math.min(until, hold.end);
  return (extensionsOf(history).get(hold.process) ?? []).filter((e) => e.time >= hold.start && e.time <= to);
}

/** The validity (ms) the hold's grant gave, when it gave one. */
export function grantedValidityMs(history: readonly Op[], hold: Hold): number | undefined {
  const at = history[hold.acquireIndex];
  const grant = at?.index === hold.acquireIndex ? at : history.find((op) => op.index === hold.acquireIndex);
  return decodeGrant(grant?.value).validityMs;
}

/**
 * The hold's lease as it stood at `at` (ns): its last renewal by then, the grant or the
 * latest extension reported in the hold. Undefined when the grant gave no validity (a
 * session lock's lease is not the client's to date).
 */
export function leaseAt(history: readonly Op[], hold: Hold, at: number): Renewal | undefined {
  const validityMs = grantedValidityMs(history, hold);
  if (validityMs === undefined) return undefined;
  let last: Renewal = { time: hold.start, validityMs, index: hold.acquireIndex, extension: false };
  for (const e of extensionsIn(history, hold, at)) {
    if (e.validityMs !== undefined && e.time >= last.time) {
      last = { time: e.time, validityMs: e.validityMs, index: e.index, extension: true };
    }
  }
  return last;
}

/** When a renewal's lease runs out, in ns. */
export const leaseEnd = (r: Renewal) => r.time + r.validityMs * 1e6;
