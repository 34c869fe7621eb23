/**
 * Drives the clock-warp helper (native/clock-warp/): makes one running process read a
 * clock that lies (an offset and a rate on CLOCK_REALTIME and the monotonic clocks, through
 * its vDSO), changes it live, and puts the true clock back. The helper runs here, as
 * root: a container's process is warped by its host pid, which takes no capability inside
 * the container. Every warp is recorded first (clock-warp-records.ts), so that teardown
 * and the next start's sweep restore what a killed runner left.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { arch, platform } from 'node:os';
import { join } from 'node:path';
import { errorMessage } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { procStatFields } from '../util/proc-stat.js';
import {
  forgetWarpRecord,
  orphanedWarpRecords,
  recordWarp,
  sameProcess,
  type WarpRecord,
  warpRecords,
} from './clock-warp-records.js';

/** A change of a process's clock. offsetMs: the warp from true time from now on; jumpMs: added to the warp in place; rate: the clock runs at 1 + rate from now on. */
export interface ClockChange {
  offsetMs?: number;
  jumpMs?: number;
  rate?: number;
}

/** What the helper says of a process's clock after a command. */
export interface WarpState {
  pid: number;
  action: 'attach' | 'set' | 'read' | 'restore';
  warped: boolean;
  /** The warp in place (the process's clock minus true time), per clock, when warped. */
  offsetMs?: { realtime: number; monotonic: number; boottime: number };
  rate?: number;
  /** The true CLOCK_MONOTONIC (ns) the offsets are for: the moment the helper read them. */
  atMonotonicNs?: number;
  /** The vDSO functions patched, with their original bytes (hex). */
  sites?: { symbol: string; addr: string; original: string }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The helper's JSON line, checked (it is another program's output). */
export function parseWarpState(line: string): WarpState {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    throw new Error(`clock-warp printed no JSON: ${JSON.stringify(line.slice(0, 200))}`);
  }
  const bad = (what: string) => new Error(`clock-warp's answer has ${what}: ${line.slice(0, 200)}`);
  if (!isObject(v)) throw bad('no object');
  if (!isNumber(v.pid) || !Number.isInteger(v.pid) || v.pid <= 0) throw bad('no pid');
  if (!['attach', 'set', 'read', 'restore'].includes(v.action as string)) throw bad('an unknown action');
  if (typeof v.warped !== 'boolean') throw bad('no "warped"');
  const state: WarpState = { pid: v.pid, action: v.action as WarpState['action'], warped: v.warped };
  if (v.warped) {
    const o = v.offsetMs;
    if (!isObject(o) || !isNumber(o.realtime) || !isNumber(o.monotonic) || !isNumber(o.boottime))
      throw bad('no offsets');
    if (!isNumber(v.rate)) throw bad('no rate');
    state.offsetMs = { realtime: o.realtime, monotonic: o.monotonic, boottime: o.boottime };
    state.rate = v.rate;
    if (v.atMonotonicNs !== undefined) {
      if (!isNumber(v.atMonotonicNs) || v.atMonotonicNs < 0) throw bad('a malformed atMonotonicNs');
      state.atMonotonicNs = v.atMonotonicNs;
    }
  }
  if (v.sites !== undefined) {
    if (!Array.isArray(v.sites)) throw bad('sites that are not a list');
    state.sites = v.sites.map((s) => {
      if (!isObject(s) || typeof s.symbol !== 'string' || typeof s.addr !== 'string' || typeof s.original !== 'string')
        throw bad('a malformed site');
      return { symbol: s.symbol, addr: s.addr, original: s.original };
    });
  }
  return state;
}

/** The helper's command-line arguments for a change. */
export function changeArgs(change: ClockChange): string[] {
  const args: string[] = [];
  const add = (flag: string, value: number | undefined) => {
    if (value === undefined) return;
    if (!Number.isFinite(value)) throw new Error(`clock change ${flag} must be a finite number, got ${value}`);
    args.push(flag, String(value));
  };
  add('--offset-ms', change.offsetMs);
  add('--jump-ms', change.jumpMs);
  add('--rate', change.rate);
  return args;
}

/** The built helper, or undefined (not built: npm run build compiles it). */
export function clockWarpHelper(): string | undefined {
  const path = join(packageRoot, 'dist/native/clock-warp');
  return existsSync(path) ? path : undefined;
}

/** Whether processes on this machine can be warped here, or why not (one line). */
export function clockWarpSupport(): { ok: true } | { ok: false; why: string } {
  if (platform() !== 'linux' || arch() !== 'x64')
    return { ok: false, why: `clock-warp runs on x86_64 Linux only (this is ${platform()}/${arch()})` };
  if (process.getuid?.() !== 0) return { ok: false, why: 'clock-warp needs root (ptrace of other users’ processes)' };
  if (clockWarpHelper() === undefined)
    return { ok: false, why: 'the clock-warp helper is not built (npm run build; it needs gcc and libc6-dev)' };
  return { ok: true };
}

function runHelper(args: string[]): Promise<WarpState> {
  const helper = clockWarpHelper();
  if (helper === undefined) return Promise.reject(new Error(clockWarpSupportWhy()));
  return new Promise((resolve, reject) => {
    execFile(helper, args, { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) {
        const line = stderr.trim().split('\n')[0] || errorMessage(err);
        reject(new Error(line));
        return;
      }
      try {
        resolve(parseWarpState(stdout.trim().split('\n').pop() ?? ''));
      } catch (e) {
        reject(e);
      }
    });
  });
}

function clockWarpSupportWhy(): string {
  const support = clockWarpSupport();
  return support.ok ? 'clock-warp is unavailable' : support.why;
}

/** Warps process `pid` for run `runId` (recorded first, so that a killed run's warp is undone). */
export async function warpProcess(runId: string, pid: number, change: ClockChange): Promise<WarpState> {
  recordWarp(runId, pid);
  return runHelper(['attach', String(pid), ...changeArgs(change)]);
}

/** What warping a group of processes did: the ones warped, the ones that ended first, the ones that refused. */
export interface GroupWarp {
  warped: number[];
  /** Processes that exited between their listing and their warp (a server's short-lived workers). */
  ended: number[];
  failed: { pid: number; why: string }[];
}

/** A process that has exited, or is exiting (a zombie, or no /proc entry). */
function ended(pid: number): boolean {
  const state = procStatFields(pid)?.state;
  return state === undefined || /^[ZX]/.test(state);
}

/**
 * Warps each of `pids` (a container's or a program's processes, listed a moment ago): a
 * process that ended in between is passed over, not a failure of the others.
 */
export async function warpProcesses(runId: string, pids: number[], change: ClockChange): Promise<GroupWarp> {
  const out: GroupWarp = { warped: [], ended: [], failed: [] };
  for (const pid of pids) {
    try {
      await warpProcess(runId, pid, change);
      out.warped.push(pid);
    } catch (err) {
      if (ended(pid)) {
        forgetWarpRecord(runId, pid); // nothing left to restore
        out.ended.push(pid);
      } else out.failed.push({ pid, why: errorMessage(err) });
    }
  }
  return out;
}

/** Changes the warp of a warped process, live. */
export function changeWarp(pid: number, change: ClockChange): Promise<WarpState> {
  return runHelper(['set', String(pid), ...changeArgs(change)]);
}

/** The warp in place on `pid` (warped: false when none). */
export function readWarp(pid: number): Promise<WarpState> {
  return runHelper(['read', String(pid)]);
}

/**
 * Puts the true clock back in `pid` and forgets its record; undefined when the process is
 * gone (nothing to restore). A failure keeps the record, for the sweep to try again.
 */
export async function restoreProcess(runId: string, pid: number): Promise<WarpState | undefined> {
  if (!existsSync(`/proc/${pid}`)) {
    forgetWarpRecord(runId, pid);
    return undefined;
  }
  const state = await runHelper(['restore', String(pid)]);
  forgetWarpRecord(runId, pid);
  return state;
}

/**
 * Puts true time back in each of `pids` (a fault's warped processes, at its stop), going on
 * past one that fails: a line per failure, the process named by `name`, for the record.
 * `restore`: how (here by default; a target host's helper: ClockWarper.restore).
 */
export async function restoreProcesses(
  runId: string,
  pids: readonly number[],
  name: (pid: number) => string,
  restore: (runId: string, pid: number) => Promise<unknown> = restoreProcess,
): Promise<string[]> {
  const problems: string[] = [];
  for (const pid of pids) {
    try {
      await restore(runId, pid);
    } catch (err) {
      problems.push(`${name(pid)}: ${errorMessage(err)}`);
    }
  }
  return problems;
}

/** What a warped process's clock reads minus true time (CLOCK_REALTIME, ms to a tenth), as its warp says. */
export async function warpedOffsetMs(pid: number): Promise<number> {
  return realtimeOffsetMs(await readWarp(pid));
}

/**
 * Restores the processes of `records` (one whose pid is now another process's is only
 * forgotten): how many were restored, and what could not be.
 */
export async function restoreRecorded(records: WarpRecord[]): Promise<{ restored: number; problems: string[] }> {
  let restored = 0;
  const problems: string[] = [];
  for (const record of records) {
    if (!sameProcess(record)) {
      forgetWarpRecord(record.runId, record.pid);
      continue;
    }
    try {
      const state = await restoreProcess(record.runId, record.pid);
      if (state !== undefined) restored++;
    } catch (err) {
      problems.push(`process ${record.pid}'s clock (run ${record.runId}): ${errorMessage(err)}`);
    }
  }
  return { restored, problems };
}

/** At the end of a run (teardown, Ctrl-C): every process it warped gets its true clock back. */
export const restoreRunWarps = (runId: string) => restoreRecorded(warpRecords((r) => r.runId === runId));

/** The sweep: the processes warped by runs whose runner is gone (or by all runs) get their true clock back. */
export const reclaimClockWarps = (which: 'orphaned' | 'all' = 'orphaned') =>
  restoreRecorded(orphanedWarpRecords(which));

/** The cgroup line of a process (its v2 path, or all lines on a v1 host). */
function cgroupOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cgroup`, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every process in the same cgroup as `pid` (a container's processes, from its host pid;
 * a client program and its children), `pid` first; none when the cgroup does not name
 * `named` (a container's id: the pid is another namespace's).
 */
export function processesInCgroupOf(pid: number, named?: string): number[] {
  const group = cgroupOf(pid);
  if (group === undefined || (named !== undefined && !group.includes(named))) return [];
  const found = [pid];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === pid) continue;
    if (cgroupOf(Number(entry)) === group) found.push(Number(entry));
  }
  return found;
}

/**
 * Where a node's processes get their clocks warped, by pid: this machine's helper on a
 * container's host pids (localClockWarper), or a target host's helper over its channel
 * (target/ssh-clock.ts). node-clock asks only this.
 */
export interface ClockWarper {
  /** The node's service's processes now (none: not running, or not visible from here). */
  pids(): Promise<number[]>;
  /** Why `pids` found none, in words for the fault's record. */
  readonly noneFound: string;
  /** Warps each of `pids`, recorded first; one that ended in between is passed over. */
  warp(runId: string, pids: number[], change: ClockChange): Promise<GroupWarp>;
  change(pid: number, change: ClockChange): Promise<WarpState>;
  read(pid: number): Promise<WarpState>;
  /** The true clock back, the record forgotten; undefined when the process is gone. */
  restore(runId: string, pid: number): Promise<WarpState | undefined>;
  /** Processes of the node not among `warped` that a warp may have reached since (born of a warped one). */
  born(warped: readonly number[]): Promise<number[]>;
  alive(pid: number): Promise<boolean>;
}

/** A node of this engine's whose processes this runner sees by their host pids. */
export function localClockWarper(hostPids: () => Promise<number[]>): ClockWarper {
  return {
    pids: hostPids,
    noneFound: 'its processes are not visible to this runner (another pid namespace, or it is not running)',
    warp: warpProcesses,
    change: changeWarp,
    read: readWarp,
    restore: restoreProcess,
    born: async (warped) => (await hostPids().catch(() => [])).filter((p) => !warped.includes(p)),
    alive: async (pid) => existsSync(`/proc/${pid}`),
  };
}

/** A warp's CLOCK_REALTIME offset (ms, to a tenth), 0 when it is not warped. */
export const realtimeOffsetMs = (state: WarpState): number => Math.round((state.offsetMs?.realtime ?? 0) * 10) / 10;
