import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseProcStat, procStatFields } from './proc-stat.js';

/** A stat line as the kernel writes one, with the command name given. */
const line = (comm: string) =>
  `4242 (${comm}) S 17 4242 17 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 5255061 3133440 374 18446744073709551615 0 0 0\n`;

describe('parseProcStat', () => {
  it('reads state, parent, group and start time after the command', () => {
    expect(parseProcStat(line('redis-server'))).toEqual({
      comm: 'redis-server',
      state: 'S',
      ppid: 17,
      pgrp: 4242,
      startTime: '5255061',
    });
  });

  it("counts from the last ')': a command with spaces and ')' in it shifts nothing", () => {
    const stat = parseProcStat(line('my ) odd (prog) 9 9'));
    expect(stat).toMatchObject({ comm: 'my ) odd (prog) 9 9', state: 'S', ppid: 17, pgrp: 4242, startTime: '5255061' });
  });

  it('is undefined for a line that is not a stat line', () => {
    expect(parseProcStat('')).toBeUndefined();
    expect(parseProcStat('4242 no parentheses S 1 2')).toBeUndefined();
    expect(parseProcStat('4242 (short) S 1 2')).toBeUndefined();
  });
});

describe('procStatFields', () => {
  it("reads a live process's line, and nothing once it has gone", async () => {
    const child = spawn('sleep', ['30']);
    const pid = child.pid as number;
    const stat = procStatFields(pid);
    expect(stat?.ppid).toBe(process.pid);
    expect(stat?.startTime).toMatch(/^\d+$/);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect(procStatFields(pid)).toBeUndefined();
    expect(procStatFields('self')?.comm).toBeTruthy();
  });
});
