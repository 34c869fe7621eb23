/**
 * What a run hands its nemesis: one context for every fault kind. Timing (interval, TTL)
 * enters once, apart from the nodes; the clients and the per-client proxies sit beside
 * them (what the backend declares, a kind took when it was fit: kind.ts). Node faults see
 * the node part only.
 */

import { ALREADY_HELD } from '../../checkers/fault-windows.js';
import type { NodeHandle } from '../cluster/cluster.js';
import type { TrueTime } from '../util/warped-time.js';
import type { FaultTiming } from './nemesis.js';
import type { ProxyRoute } from './proxy.js';

/**
 * The client workers, as the client faults see them (client-pause stops one, client-clock
 * steps its clock, latency and clock:bridge ask who holds): the runner's worker pool.
 */
export interface NemesisClients {
  /** Client indices whose current process holds a lock (acquire ok, no release yet). */
  holders(): number[];
  /**
   * The client's clock is being moved (client-clock-warp) or is true again: its operations
   * are stamped on the runner's clock as they arrive meanwhile, not on its own.
   */
  clockWarped?(client: number, warped: boolean, trueTime?: TrueTime): void;
  /** The client's worker process. */
  pid(client: number): number | undefined;
  /**
   * Every process the client is made of: its worker and, when it drives a client program
   * (the client protocol), that program too. A client pause stops them all.
   */
  pids(client: number): number[];
  /** The client's current history process number. */
  process(client: number): number;
  /**
   * The client program the client drives (the client protocol), while it runs: its pid (the
   * command itself, under the shell that started it) and its process group, for the pause
   * record, so that one can check a foreign program was stopped. Undefined for a built-in
   * client; optional, since a target without client programs has none to name.
   */
  program?(client: number): { pid: number; pgid: number } | undefined;
  /** The number of clients. */
  count(): number;
  /** What the client's current grant carried (the acquire's ok value), while it holds. */
  grant(client: number): unknown;
  /** When the runner learned of the client's current grant (Date.now()), while it holds. */
  grantedAt(client: number): number | undefined;
  /**
   * Has every client ask before it goes on from this code point; the first to reach it
   * within timeoutMs is stopped there (its worker and its program, SIGSTOP) and handed
   * over with the way to let it go on (SIGCONT, then go, its own clock first stepped by
   * clockStepMs: client-clock). Undefined if none reached it.
   */
  catchAtPoint(where: string, timeoutMs: number, clockStepMs?: number): Promise<CaughtAtPoint | undefined>;
  /**
   * Kills the client whole (worker and program, SIGKILL), its cycle ended on the record
   * with `why`, and starts a fresh client in its place with a new process number (Jepsen's
   * crashed client); false when the run is stopping.
   */
  crash(client: number, why: string): boolean;
}

/** A client stopped at a code point by catchAtPoint. */
export interface CaughtAtPoint {
  client: number;
  /** The processes stopped: its worker and, when it drives one, its program's group (negative). */
  pids: number[];
  /** Resumes it and lets it go on from the point; idempotent. */
  resume(): void;
}

/** Sends `signal` to each process; those it reached (one already gone is skipped). How a client is paused and resumed. */
export function signalAll(pids: readonly number[], signal: 'SIGSTOP' | 'SIGCONT'): number[] {
  return pids.filter((pid) => {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false; // already gone
    }
  });
}

export interface NodeFaultContext {
  runId: string;
  /** The lock service's nodes (the data store is not faulted). */
  nodes: NodeHandle[];
  /** The current leader's node name, where the backend can tell. */
  leader?: () => Promise<string | undefined>;
  timing: FaultTiming;
  /** kill-node: restart nodes empty. */
  loseData: boolean;
  /**
   * Nodes paused or killed right now, shared by all fault kinds of the run: composed faults
   * pick among the others (a frozen or dead container takes no `exec`), and a heal that
   * must run inside a node waits until it is back.
   */
  unavailable: Set<string>;
  /**
   * While a clients-majorities split is in effect: the node both client groups reach, and,
   * once clock:bridge has jumped it under a holder, whether that holder still holds (the
   * split outlasts that hold, so the story plays out whatever the machine's speed).
   */
  split?: { bridge: string; outlast?: () => boolean };
}

/** The node part of a context as a run starts: no node out, no split; not losing data unless said. */
export const nodeFaultContext = (
  runId: string,
  nodes: NodeHandle[],
  timing: FaultTiming,
  more: Partial<Pick<NodeFaultContext, 'leader' | 'loseData'>> = {},
): NodeFaultContext => ({ runId, nodes, timing, loseData: false, unavailable: new Set(), ...more });

export interface NemesisContext extends NodeFaultContext {
  clients: NemesisClients;
  /** The per-client proxies; empty unless a kind of the run uses them (FaultKindModule.usesProxies). */
  routes: ProxyRoute[];
}

/** Why a client stopped at the state that matters was let go. */
export type HandOver = 'another client held the lock' | typeof ALREADY_HELD | 'its length was spent';

/**
 * The clients that hold the lock, as soon as one does, or none once `deadline` (Date.now()
 * ms) has come: the faults aimed at a holder (kept-holder, client-clock-warp:holder) wait
 * here for one to aim at.
 */
export async function untilSomeoneHolds(clients: Pick<NemesisClients, 'holders'>, deadline: number): Promise<number[]> {
  for (;;) {
    const holders = clients.holders();
    if (holders.length > 0 || Date.now() >= deadline) return holders;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Waits until a client other than `client` holds the lock (the lease it had has lapsed and
 * the lock changed hands), or until `deadline` (Date.now() ms), whichever comes first; the
 * faults aimed at a state (kept-holder, client-pause:at=, wire) end there. Undefined when
 * `abandoned()` says the wait no longer matters (the fault ended some other way).
 */
export async function untilHandedOver(
  clients: Pick<NemesisClients, 'holders'>,
  client: number,
  deadline: number,
  abandoned: () => boolean = () => false,
): Promise<HandOver | undefined> {
  for (let first = true; ; first = false) {
    if (abandoned()) return undefined;
    if (clients.holders().some((h) => h !== client)) return first ? ALREADY_HELD : 'another client held the lock';
    if (Date.now() >= deadline) return 'its length was spent';
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * The processes a fault stopped, as its record names them: the worker's pid (`worker`, when
 * it was among them), the program's group. The others stopped (the members of the
 * program's cgroup) are not named: the first positive pid is one of those, not the worker.
 */
export function stoppedProcesses(
  pids: readonly number[],
  worker: number | undefined,
): { pid?: number; programGroup?: number } {
  const program = pids.find((p) => p < 0);
  if (worker !== undefined && !pids.includes(worker)) worker = undefined;
  return {
    ...(worker === undefined ? {} : { pid: worker }),
    ...(program === undefined ? {} : { programGroup: -program }),
  };
}
