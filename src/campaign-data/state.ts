/**
 * Where a campaign is: running (n of N, elapsed, about M left), finished, cut short (a
 * signal, its time budget, or a runner that stopped without a word), or failed (its runner
 * ended in an internal error, and wrote so with the error). summary.json is
 * rewritten while the campaign runs, so a reader finds "running" there also when the
 * runner was killed outright (SIGKILL, a CI job's hard stop): the runner's identity and a
 * heartbeat let a reader tell the two apart. On this machine the runner's process is
 * looked up; on another (a store downloaded from CI), a heartbeat older than STALE_MS
 * means no runner is writing any more.
 */
import { hostname } from 'node:os';
import { procStatFields } from '../util/proc-stat.js';

export type CampaignStateName = 'running' | 'finished' | 'cut-short' | 'failed';

/** The process that writes a campaign folder, as summary.json records it. */
export interface CampaignRunner {
  host: string;
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/PID/stat), where there is one: a pid can be reused. */
  started?: number;
}

export interface CampaignProgress {
  /** Cells with a verdict (or an error) so far, of `total` in this shard. */
  done: number;
  total: number;
  elapsedS: number;
  /** About how many seconds are left, from the mean pace so far (none before the first cell). */
  leftS?: number;
}

/** The runner rewrites summary.json at least this often while it runs (the heartbeat). */
export const HEARTBEAT_MS = 30_000;
/**
 * A running campaign seen from another machine is taken as cut short once its heartbeat is
 * this old: ten heartbeats, so a runner busy in a long checker is not misread.
 */
export const STALE_MS = 10 * HEARTBEAT_MS;

/** Field 22 of /proc/PID/stat: the start time, in ticks since boot. */
function startTicks(pid: number | 'self'): number | undefined {
  const ticks = Number(procStatFields(pid)?.startTime);
  return Number.isFinite(ticks) ? ticks : undefined;
}

/** This process, as the runner of a campaign. */
export function thisRunner(): CampaignRunner {
  const started = startTicks('self');
  return { host: hostname(), pid: process.pid, ...(started === undefined ? {} : { started }) };
}

/**
 * Whether the runner still runs: true or false on its own machine, undefined on another
 * (nothing there to ask).
 */
export function runnerAlive(runner: CampaignRunner): boolean | undefined {
  if (runner.host !== hostname()) return undefined;
  try {
    process.kill(runner.pid, 0);
  } catch (err) {
    // EPERM: a process of another user has that pid: alive, but not ours if the start differs.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (runner.started === undefined) return true;
  const now = startTicks(runner.pid);
  return now === undefined || now === runner.started;
}

/** A runner as summary.json records it: a host name and a pid (its start, where written, a count). */
export function isRunner(x: unknown): x is CampaignRunner {
  if (typeof x !== 'object' || x === null || !('host' in x) || !('pid' in x)) return false;
  const started = 'started' in x ? x.started : undefined;
  return (
    typeof x.host === 'string' &&
    typeof x.pid === 'number' &&
    Number.isSafeInteger(x.pid) &&
    (started === undefined || typeof started === 'number')
  );
}

export interface StoredState {
  state?: unknown;
  cutShortBy?: unknown;
  failedBy?: unknown;
  updatedAt?: unknown;
  finishedAt?: unknown;
  interrupted?: unknown;
  runner?: unknown;
}

/**
 * What a reader makes of a stored state: as written (a failed one with the error its
 * runner wrote), or a "running" whose runner is gone, cut short.
 */
export function observedState(
  s: StoredState,
  nowMs = Date.now(),
): { state: CampaignStateName; cutShortBy?: string; failedBy?: string } {
  const by = typeof s.cutShortBy === 'string' ? s.cutShortBy : undefined;
  if (s.state === 'failed')
    return { state: 'failed', failedBy: typeof s.failedBy === 'string' ? s.failedBy : 'an error' };
  let state: CampaignStateName;
  if (s.state === 'running' || s.state === 'finished' || s.state === 'cut-short') state = s.state;
  // Folders written before the state was recorded: a finish time, or an interruption, says it.
  else if (s.interrupted === true) state = 'cut-short';
  else state = typeof s.finishedAt === 'string' && s.finishedAt !== '' ? 'finished' : 'running';
  if (state === 'cut-short') return { state, cutShortBy: by ?? 'an interruption' };
  if (state === 'finished') return { state };
  const alive = isRunner(s.runner) ? runnerAlive(s.runner) : undefined;
  if (alive === false) {
    return { state: 'cut-short', cutShortBy: 'its runner stopped without finishing (killed?)' };
  }
  const updated = typeof s.updatedAt === 'string' ? Date.parse(s.updatedAt) : Number.NaN;
  if (alive === undefined && (!Number.isFinite(updated) || nowMs - updated > STALE_MS)) {
    const since = Number.isFinite(updated) ? ` since ${s.updatedAt}` : '';
    return { state: 'cut-short', cutShortBy: `no word from its runner${since} (killed, or its job stopped)` };
  }
  return { state: 'running' };
}

/** "12 s", "4 min", "1 h 5 min": the elapsed and left times of a campaign, to a reader. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 90) return `${min} min`;
  return `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** "3 of 39 cells, 4 min elapsed, about 36 min left". */
export function progressText(p: CampaignProgress): string {
  const left = p.leftS === undefined ? '' : `, about ${duration(p.leftS)} left`;
  return `${p.done} of ${p.total} cells, ${duration(p.elapsedS)} elapsed${left}`;
}

/** The pace so far, projected: elapsed per finished cell times the cells left. */
export function estimate(done: number, total: number, elapsedS: number): CampaignProgress {
  const p: CampaignProgress = { done, total, elapsedS };
  if (done > 0 && done < total) p.leftS = (elapsedS / done) * (total - done);
  else if (done >= total) p.leftS = 0;
  return p;
}
