import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshStateDirs } from '../../test/unit/state-dir.js';
import {
  forgetWarpRecord,
  orphanedWarpRecords,
  parseWarpRecord,
  recordWarp,
  sameProcess,
  warpRecordDir,
} from './clock-warp-records.js';

describe('warp records', () => {
  freshStateDirs();

  it('records a live process under this runner, and forgets it', () => {
    const record = recordWarp('abc123', process.pid);
    expect(record.pid).toBe(process.pid);
    expect(sameProcess(record)).toBe(true);
    // This runner is alive: its record is not an orphan's.
    expect(orphanedWarpRecords()).toEqual([]);
    expect(orphanedWarpRecords('all')).toEqual([record]);
    forgetWarpRecord('abc123', process.pid);
    expect(readdirSync(warpRecordDir())).toEqual([]);
  });

  it("finds a dead runner's record, and tells a recycled pid from the warped process", () => {
    const record = recordWarp('abc123', process.pid);
    // The same record written by a runner of this host that is gone (its start time differs).
    const dead = { ...record, runId: 'def456', owner: `${hostname()}:${process.pid}:0` };
    writeFileSync(join(warpRecordDir(), `def456-${process.pid}.json`), JSON.stringify(dead));
    expect(orphanedWarpRecords()).toEqual([dead]);
    expect(sameProcess(dead)).toBe(true);
    expect(sameProcess({ ...dead, start: '1' })).toBe(false);
  });

  it('refuses a record that is not one, and removes its file', () => {
    expect(parseWarpRecord('{"runId":"abc","owner":"h:1:2","pid":4,"start":"9"}')).toEqual({
      runId: 'abc',
      owner: 'h:1:2',
      pid: 4,
      start: '9',
    });
    expect(parseWarpRecord('{"runId":"../x","owner":"h:1:2","pid":4,"start":"9"}')).toBeUndefined();
    expect(parseWarpRecord('{"runId":"abc","owner":"h:1:2","pid":0,"start":"9"}')).toBeUndefined();
    expect(parseWarpRecord('{"runId":"abc"')).toBeUndefined();
    recordWarp('abc123', process.pid);
    const half = join(warpRecordDir(), 'def456-1.json');
    writeFileSync(half, '{"runId":');
    expect(orphanedWarpRecords('all').map((r) => r.runId)).toEqual(['abc123']);
    expect(existsSync(half)).toBe(false);
  });
});
