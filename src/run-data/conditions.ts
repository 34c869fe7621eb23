/**
 * A run that did not run as configured: interrupted (SIGINT/SIGTERM), a client worker
 * lost, the data store lost, the workload overran its time limit, the history not fully
 * written, a holder the machine stalled past its lease. Each is a condition, recorded in
 * results.json and shown wherever the verdict is (the summary, junit.xml, report.html, a
 * campaign's cell), because the verdict is then about something other than what was asked
 * for.
 *
 * What it does to the verdict: a violation found is still a violation (the history is
 * real), but "valid" becomes unknown: no violation in a run cut to 2.7 s of 20, or with one
 * client of five, is not the evidence the configuration was meant to give. Exit code: 130
 * for an interruption, 3 for any other condition (a harness failure), else the verdict's.
 */
import { REFUSED_GRANT } from '../../checkers/op-values.js';
import { exitCodeFor, type Validity } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import { cliCommand } from '../util/paths.js';
import { plural } from '../util/plural.js';

export type ConditionKind =
  | 'interrupted'
  | 'worker-lost'
  | 'store-lost'
  | 'overran'
  | 'history-unwritten'
  | 'client-program-broken'
  | 'bad-grant'
  | 'node-lost'
  /** A target's node the run's heal did not restore (a process still stopped, a rule, a service down). */
  | 'not-healed'
  /** A client worker the machine did not run for long enough to outlive its lease (runner/machine-stalls.ts). */
  | 'machine-stall';

export interface RunCondition {
  kind: ConditionKind;
  /** One line: what happened, when. */
  message: string;
  /** An interruption while the history was being checked: the workload itself ran as configured. */
  whileChecking?: true;
}

export const EXIT_INTERRUPTED = 130;
const EXIT_HARNESS = 3;

/** The run's verdict given its checkers' and its conditions: valid needs a run as configured. */
export function runVerdict(checkers: Validity, conditions: readonly RunCondition[]): Validity {
  return conditions.length > 0 && checkers === true ? 'unknown' : checkers;
}

/** 130 when interrupted, 3 for any other condition, else the verdict's code. */
export function runExitCode(valid: Validity, conditions: readonly RunCondition[] = []): number {
  if (conditions.some((c) => c.kind === 'interrupted')) return EXIT_INTERRUPTED;
  if (conditions.length > 0) return EXIT_HARNESS;
  return exitCodeFor(valid);
}

/** "did not run as configured: a; b", or '' when it did. */
export function conditionsText(conditions: readonly RunCondition[]): string {
  return conditions.length ? `did not run as configured: ${conditions.map((c) => c.message).join('; ')}` : '';
}

const s1 = (x: number) => `${Math.round(x * 10) / 10} s`;

/** An interruption, at `atS` seconds of workload out of the time limit. */
export function interrupted(reason: unknown, atS: number | undefined, timeLimitS: number): RunCondition {
  const why = typeof reason === 'string' && reason !== '' ? reason : 'aborted';
  const when = atS === undefined ? 'before the workload began' : `at ${s1(atS)} of ${s1(timeLimitS)}`;
  return { kind: 'interrupted', message: `interrupted (${why}) ${when}` };
}

/**
 * Interrupted while its history was being checked: the workload ran as configured and is
 * on disk in full; only the verdict is missing, and `lockchaos report` gives it.
 */
export function checkInterrupted(reason: unknown, dir: string): RunCondition {
  const why = typeof reason === 'string' && reason !== '' ? reason : 'aborted';
  return {
    kind: 'interrupted',
    message: `interrupted (${why}) while checking: the history is complete; ${cliCommand} report ${dir} checks it`,
    whileChecking: true,
  };
}

/**
 * How long the workload may take (its time limit as the timers kept it, then the clients'
 * stop; healing faults is not counted), before the run
 * counts as overrun: the time limit, the grace given to clients to finish, and slack of a
 * quarter of the time limit (at least 5 s) for a loaded machine. Past that, faults and
 * leases no longer had the timing the configuration asked for (a starved host).
 */
export function overrun(
  workloadS: number,
  timeLimitS: number,
  graceS: number,
  /** What took the time, when the runner knows (else a slow or starved machine). */
  cause = 'the machine was too slow or starved',
): RunCondition | undefined {
  const allowedS = timeLimitS + graceS + Math.max(5, timeLimitS / 4);
  if (workloadS <= allowedS) return undefined;
  return {
    kind: 'overran',
    message: `the workload took ${s1(workloadS)} for a time limit of ${s1(timeLimitS)} (at most ${s1(allowedS)} with the clients' grace): ${cause}, so timings were not as configured`,
  };
}

/**
 * What the clients' wait for the faults to end counts of the workload: nothing for faults
 * that healed (a fault runs its full length past the time limit, a restarted node waits to
 * answer, an etcd member is replaced), all of it when a fault's stop failed: it waited on
 * something that did not come back (a node removed from outside), while the clients ran on.
 */
export function healCounted(healS: number, stopFailed: boolean): { s: number; cause?: string } {
  return stopFailed
    ? { s: healS, cause: `a fault's stop failed after ${s1(healS)} past the time limit, the clients running on` }
    : { s: 0 };
}

/** A worker that exited before it was asked to stop. */
export function workerLost(w: {
  client: number;
  code: number | null;
  signal: string | null;
  atS?: number;
}): RunCondition {
  const how = w.signal ? `killed by ${w.signal}` : `exited with code ${w.code}`;
  const when = w.atS === undefined ? '' : ` at ${s1(w.atS)}`;
  return {
    kind: 'worker-lost',
    message: `client worker ${w.client} ${how}${when}: the run went on with fewer clients`,
  };
}

/**
 * Acquires whose grant the client refused (REFUSED_GRANT): the backend handed out a value
 * the history cannot hold (NaN, Infinity, a string or negative token, a negative validity). The run did not test the lock
 * as it is: a harness error naming the backend and the fix.
 */
export function badGrants(history: readonly Op[], backend: string): RunCondition | undefined {
  const refused = history.filter(
    (op) => op.f === 'acquire' && op.type === 'info' && op.error?.startsWith(REFUSED_GRANT),
  );
  const first = refused[0];
  if (!first) return undefined;
  const why = first.error?.slice(REFUSED_GRANT.length);
  return {
    kind: 'bad-grant',
    message: `backend ${backend} returned ${plural(refused.length, 'grant')} the client refused, first at op #${first.index}: ${why} (recorded as info): make its acquire return validityMs as a number of ms, 0 or more, a token (if any) as a whole number from 0 to 2^53-1, and votes as a finite number`,
  };
}

/**
 * A worker that exited on its own with its cycle open on the record: operations it made
 * never reached the history (the harness ended the cycle there, as unknown).
 */
export function cycleLeftOpen(client: number): RunCondition {
  return {
    kind: 'history-unwritten',
    message: `client worker ${client} exited with its last cycle missing from the history (ended there as unknown)`,
  };
}

/**
 * Client programs (the client protocol) that crashed, hung or answered garbage with no
 * fault near (under one, the library failed: program-failures.ts), one condition per way
 * they broke: their clients stopped there.
 */
export function programsBroken(broken: readonly { client: number; why: string }[]): RunCondition[] {
  const byWhy = new Map<string, number[]>();
  for (const b of broken) byWhy.set(b.why, [...(byWhy.get(b.why) ?? []), b.client]);
  return [...byWhy].map(([why, clients]) => {
    const whose =
      clients.length === 1
        ? `client ${clients[0]}'s program`
        : `the programs of clients ${[...clients].sort((a, b) => a - b).join(', ')}`;
    return {
      kind: 'client-program-broken',
      message: `${whose} broke (${why}): the request ended unknown and the client stopped there`,
    };
  });
}

/**
 * What the heal at the end could not undo on a target's node (target-cluster.ts): the run
 * left the system it tested in another state than it found it, and the faults it meant to
 * end may not have ended when it says.
 */
export function notHealed(line: string): RunCondition {
  return {
    kind: 'not-healed',
    message: `not healed after the run: ${line} (${cliCommand} cleanup --target FILE tries again)`,
  };
}

/** Thrown when a run is interrupted before its workload began: nothing to check. */
export class RunInterrupted extends Error {
  override name = 'RunInterrupted';
  constructor(readonly condition: RunCondition) {
    super(condition.message);
  }
}
