/**
 * Every container and network a run makes carries these labels, so that teardown, the
 * sweep at the next start and `lockchaos cleanup` find exactly what lockchaos made.
 * The owner label names the runner process (host, pid, start time), so the sweep can tell
 * a live run's resources from those a crashed runner left. Names only, no engine: a client
 * worker imports them (remove-resources.ts removes what carries them).
 */
import { hostname } from 'node:os';
import { procStatFields } from '../util/proc-stat.js';

export const LABEL_RUN = 'org.lockchaos.run';
export const LABEL_OWNER = 'org.lockchaos.owner';
export const LABEL_ROLE = 'org.lockchaos.role';
/** The role of a helper container that joins a node's network namespace (netns.ts). */
export const NET_HELPER_ROLE = 'net-helper';
/** Environment marker on client worker processes: "<run id>@<runner owner label>". */
export const WORKER_ENV = 'LOCKCHAOS_WORKER_RUN';

/** A process's start time (clock ticks since boot), which tells it from a later one with its pid. */
export const processStartTime = (pid: number): string | undefined => procStatFields(pid)?.startTime;

export function ownerLabel(pid = process.pid): string {
  return `${hostname()}:${pid}:${processStartTime(pid) ?? '?'}`;
}

/** True when the runner named by an owner label is still running on this host. */
export function ownerAlive(owner: string | undefined): boolean {
  if (!owner) return false;
  const [host, pidText, start] = owner.split(':');
  if (host !== hostname()) return true; // another host's run: not ours to judge
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  return processStartTime(pid) === start;
}

/**
 * The cgroup of a run's client program (util/cgroup.ts): "<run id>-<runner pid>-<its start
 * time>-<client>", so that the sweep can tell the groups of a runner that is gone.
 * `owner` is the runner's owner label (a worker has it from WORKER_ENV).
 */
export function clientCgroupName(runId: string, client: string, owner = ownerLabel()): string {
  const [, pid, start] = owner.split(':');
  return `${runId}-${pid}-${start}-${client}`;
}

/** The run id and the runner's owner label a client cgroup's name holds (undefined: not one of ours). */
export function cgroupOwner(name: string): { runId: string; owner: string } | undefined {
  const m = /^([0-9a-f]+)-(\d+)-([^-]+)-/.exec(name);
  return m ? { runId: m[1] as string, owner: `${hostname()}:${m[2]}:${m[3]}` } : undefined;
}

export function runLabels(runId: string, role: string): Record<string, string> {
  return { [LABEL_RUN]: runId, [LABEL_OWNER]: ownerLabel(), [LABEL_ROLE]: role };
}
