/**
 * One client's worker: a real process (so that SIGSTOP pauses it), forked with its channel,
 * and what the runner knows of it. Its life as a whole (ready, lost, stopped, replaced) is
 * the pool's (worker-pool.ts); its messages are the channel's (worker-channel.ts).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { clientCgroupName, ownerLabel, WORKER_ENV } from '../cluster/labels.js';
import { cgroupPath, killCgroup } from '../util/cgroup.js';
import { packageRoot } from '../util/paths.js';
import { OpenCycle } from './cycle-ends.js';

/** The built worker (also when the runner itself runs from TypeScript sources, in vitest). */
export const workerEntry = () => join(packageRoot, 'dist/src/worker/worker.js');

export interface ClientWorker {
  child: ChildProcess;
  process: number;
  /** Its cycle as the record shows it (the lock it holds, the grant), to end it on the record if the client cannot. */
  cycle: OpenCycle;
  /** The harness wrote the end of its cycle: what the worker sends after that is not recorded. */
  ended: boolean;
  /** The time of its latest recorded operation (ns since the origin). */
  lastSeen?: number;
  ready: boolean;
  /** Resolves when the process has exited and its channel is closed (every message it sent has arrived). */
  finished: Promise<void>;
  /** `finished` has resolved: nothing more will come from it. */
  heardAll?: boolean;
  /** A message to it could not be written (its channel had closed). */
  sendFailed?: boolean;
  /** The client program the worker drives (the client protocol), once it has started. */
  programPid?: number;
  /** The cgroup its program runs in, where cgroups can be made (the worker made it; its name is the run's). */
  cgroup?: string;
  /** How often it reached each code point (its latest cumulative count). */
  reached: Record<string, number>;
  /** Killed by the nemesis (client-kill) and replaced: its exit is no loss. */
  replaced?: boolean;
  /** It replaces one the nemesis killed: it joins the workload once ready. */
  replacement?: boolean;
  /** Points reached by the clients this one replaced, kept for coverage. */
  reachedBefore?: Record<string, number>;
}

/** A forked worker, and when its channel closed (the parent has read all the child sent: its last operations). */
export interface ForkedWorker {
  worker: ClientWorker;
  closed: Promise<void>;
}

/**
 * Forks the worker of client slot `client` of run `runId`; `cgroupName`: its program's
 * cgroup (a replacement's has its own). `finished` resolves once it exited and all it sent
 * was read, then `onFinished` runs.
 */
export function forkWorker(
  entry: string,
  runId: string,
  client: number,
  cgroupName: string,
  onFinished: (worker: ClientWorker) => void,
): ForkedWorker {
  const child = fork(entry, [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [WORKER_ENV]: `${runId}@${ownerLabel()}` },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const closed = new Promise<void>((resolve) => {
    child.once('disconnect', () => resolve());
    child.once('close', () => resolve());
  });
  const worker: ClientWorker = {
    child,
    process: client,
    cycle: new OpenCycle(),
    ended: false,
    ready: false,
    reached: {},
    cgroup: cgroupPath(clientCgroupName(runId, cgroupName)),
    finished: Promise.all([exited, closed]).then(() => {
      worker.heardAll = true;
      onFinished(worker);
    }),
  };
  return { worker, closed };
}

/**
 * Kills the client program a worker drives (its process group; SIGKILL ends a paused one
 * too): a worker killed, or lost, cannot close it, and a program in its own group would
 * outlive it, perhaps stopped for good. Only while the worker had it: a closed program's
 * group id may name another group later.
 */
export function killProgram(w: ClientWorker): void {
  if (w.programPid === undefined) return;
  if (w.cgroup !== undefined) killCgroup(w.cgroup);
  try {
    process.kill(w.programPid, 'SIGKILL');
  } catch {
    // gone already
  }
}

/** Point counts added up. */
export function sumPoints(counts: readonly Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const c of counts) for (const [p, n] of Object.entries(c)) sum[p] = (sum[p] ?? 0) + n;
  return sum;
}
