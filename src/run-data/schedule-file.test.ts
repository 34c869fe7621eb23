import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { configFromArgs } from '../cli/run.js';
import { DEFAULTS } from './config.js';
import { resolveRun } from './resolve.js';
import { readScheduleFile, scheduleFileOf } from './schedule-file.js';

const dir = mkdtempSync(join(tmpdir(), 'lockchaos-schedule-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const faults = [{ kind: 'client-pause', atMs: 2000, durationMs: 1500, seed: 7 }];
const stored = {
  ...DEFAULTS,
  name: 'first-run',
  nemesis: 'client-pause',
  seed: 5,
  storeDir: join(dir, 'their-store'),
  schedule: faults,
};

describe('schedule files', () => {
  it("takes a run's test.json as a schedule: its run parameters and faults, not its name, seed or store", () => {
    writeFileSync(join(dir, 'test.json'), JSON.stringify(stored));
    const read = readScheduleFile(dir);
    expect(read.faults).toEqual(faults);
    expect(read.config).not.toHaveProperty('name');
    expect(read.config).not.toHaveProperty('seed');
    expect(read.config).not.toHaveProperty('storeDir');
    const parsed = configFromArgs(['--schedule', dir, '--time-limit', '9']);
    if (parsed === 'help') throw new Error('unreachable');
    expect(parsed.config).toMatchObject({ nemesis: 'client-pause', timeLimitS: 9, storeDir: DEFAULTS.storeDir });
    expect(parsed.config.schedule).toEqual(faults);
  });

  it("keeps every run parameter of the schedule's run, fencing and nodes too; flags given win", () => {
    const fenced = join(dir, 'fenced');
    mkdirSync(fenced, { recursive: true });
    writeFileSync(join(fenced, 'test.json'), JSON.stringify({ ...stored, fencing: true, nodes: 1, loseData: true }));
    const parsed = configFromArgs(['--schedule', fenced]);
    if (parsed === 'help') throw new Error('unreachable');
    expect(parsed.config).toMatchObject({ fencing: true, nodes: 1, loseData: true, name: '' });
    // Named once resolved, by what it runs.
    expect(resolveRun(parsed.config).config.name).toBe('redis-lock-set-client-pause-fenced');
    const unfenced = configFromArgs(['--schedule', fenced, '--fencing', 'off']);
    if (unfenced === 'help') throw new Error('unreachable');
    expect(unfenced.config.fencing).toBe(false);
  });

  it('reads back the schedule file it writes', () => {
    const file = join(dir, 'minimal-schedule.json');
    writeFileSync(file, JSON.stringify(scheduleFileOf(stored)));
    expect(readScheduleFile(file)).toEqual({ config: { ...scheduleFileOf(stored).config }, faults });
  });

  it('refuses what is not a schedule, in one line', () => {
    const file = join(dir, 'other.json');
    writeFileSync(file, JSON.stringify({ hello: 1 }));
    expect(() => readScheduleFile(file)).toThrow(
      /^--schedule: '.*other\.json' is not a schedule: give a schedule file/,
    );
    writeFileSync(
      file,
      JSON.stringify({ ...stored, schedule: [{ kind: 'client-pause', atMs: -1, durationMs: 5, seed: 1 }] }),
    );
    expect(() => readScheduleFile(file)).toThrow(/schedule: fault 1 has atMs -1: give milliseconds/);
  });
});
