/**
 * A warped process must get its true clock back even when its runner is killed: before
 * the helper attaches, the run writes a record on this machine (its id, its runner's owner
 * label, the pid and the process's start time, which tells it from a later process with
 * the same pid). Restoring removes it; the next start's sweep (and `lockchaos cleanup`)
 * restores the processes of every record whose runner is gone.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateDir } from '../util/paths.js';
import { ownerAlive, ownerLabel, processStartTime } from './labels.js';

export interface WarpRecord {
  runId: string;
  owner: string;
  pid: number;
  /** /proc/<pid>/stat's start time when the warp began. */
  start: string;
}

export const warpRecordDir = (): string => join(stateDir(), 'clock-warps');

const recordPath = (runId: string, pid: number) => join(warpRecordDir(), `${runId}-${pid}.json`);

export function recordWarp(runId: string, pid: number): WarpRecord {
  const start = processStartTime(pid);
  if (start === undefined) throw new Error(`no process ${pid} to warp`);
  const record: WarpRecord = { runId, owner: ownerLabel(), pid, start };
  mkdirSync(warpRecordDir(), { recursive: true, mode: 0o700 });
  writeFileSync(recordPath(runId, pid), `${JSON.stringify(record)}\n`, { mode: 0o600 });
  return record;
}

export const forgetWarpRecord = (runId: string, pid: number) => rmSync(recordPath(runId, pid), { force: true });

/** A record file's text, checked: undefined when it is not one (half-written, or not ours). */
export function parseWarpRecord(text: string): WarpRecord | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const r = v as Record<string, unknown>;
  if (typeof r.runId !== 'string' || !/^[0-9a-f]+$/.test(r.runId)) return undefined;
  if (typeof r.owner !== 'string' || typeof r.start !== 'string') return undefined;
  if (typeof r.pid !== 'number' || !Number.isInteger(r.pid) || r.pid <= 0) return undefined;
  return { runId: r.runId, owner: r.owner, pid: r.pid, start: r.start };
}

/** The records `which` selects; a file that is no record is removed (its run died writing it). */
export function warpRecords(which: (record: WarpRecord) => boolean): WarpRecord[] {
  let names: string[];
  try {
    names = readdirSync(warpRecordDir()).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const found: WarpRecord[] = [];
  for (const name of names) {
    let record: WarpRecord | undefined;
    try {
      record = parseWarpRecord(readFileSync(join(warpRecordDir(), name), 'utf8'));
    } catch {
      continue;
    }
    if (record === undefined) rmSync(join(warpRecordDir(), name), { force: true });
    else if (which(record)) found.push(record);
  }
  return found;
}

/** The records of runs whose runner is gone (or all of them). */
export const orphanedWarpRecords = (which: 'orphaned' | 'all' = 'orphaned') =>
  warpRecords((r) => which === 'all' || !ownerAlive(r.owner));

/** Whether the record's process is still the one that was warped. */
export const sameProcess = (record: WarpRecord): boolean => processStartTime(record.pid) === record.start;
