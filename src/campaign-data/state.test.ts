/**
 * A campaign's state as a reader sees it: what the runner wrote, except a "running" whose
 * runner is gone, which is cut short (a SIGKILL leaves no other word).
 */
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { duration, estimate, observedState, progressText, STALE_MS, thisRunner } from './state.js';

/** The pid of a process that has exited: nothing runs under it (until the pid is reused). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('observedState', () => {
  const now = Date.parse('2026-12-01T12:00:00.000Z');
  const fresh = new Date(now - 1000).toISOString();

  it('a running campaign whose runner is this live process is running', () => {
    expect(observedState({ state: 'running', runner: thisRunner(), updatedAt: fresh }, now)).toEqual({
      state: 'running',
    });
  });

  it('a running campaign whose runner exited on this machine is cut short, however fresh its heartbeat', () => {
    const runner = { host: hostname(), pid: deadPid() };
    expect(observedState({ state: 'running', runner, updatedAt: fresh }, now)).toEqual({
      state: 'cut-short',
      cutShortBy: 'its runner stopped without finishing (killed?)',
    });
  });

  it('a pid reused by another process is not the runner: its start time differs', () => {
    const runner = { ...thisRunner(), started: (thisRunner().started ?? 0) + 1 };
    expect(observedState({ state: 'running', runner, updatedAt: fresh }, now).state).toBe('cut-short');
  });

  it('on another machine, the heartbeat decides: fresh is running, stale is cut short', () => {
    const runner = { host: `not-${hostname()}`, pid: 1 };
    expect(observedState({ state: 'running', runner, updatedAt: fresh }, now).state).toBe('running');
    const stale = new Date(now - STALE_MS - 1000).toISOString();
    expect(observedState({ state: 'running', runner, updatedAt: stale }, now)).toEqual({
      state: 'cut-short',
      cutShortBy: `no word from its runner since ${stale} (killed, or its job stopped)`,
    });
  });

  it('a failed campaign is failed with its error, though its runner is gone', () => {
    const runner = { host: hostname(), pid: deadPid() };
    expect(observedState({ state: 'failed', failedBy: 'internal error: boom', runner, updatedAt: fresh }, now)).toEqual(
      {
        state: 'failed',
        failedBy: 'internal error: boom',
      },
    );
    expect(observedState({ state: 'failed', failedBy: 3 }, now)).toEqual({ state: 'failed', failedBy: 'an error' });
  });

  it('what the runner wrote when it ended stands; older folders are read by their finish time', () => {
    expect(observedState({ state: 'finished' }, now)).toEqual({ state: 'finished' });
    expect(observedState({ state: 'cut-short', cutShortBy: 'SIGTERM' }, now)).toEqual({
      state: 'cut-short',
      cutShortBy: 'SIGTERM',
    });
    expect(observedState({ finishedAt: '2026-11-30T02:00:00.000Z', interrupted: false }, now).state).toBe('finished');
    expect(observedState({ finishedAt: '2026-11-30T02:00:00.000Z', interrupted: true }, now).state).toBe('cut-short');
  });
});

describe('progress', () => {
  it('projects the pace so far onto the cells left, in words a reader takes in at a glance', () => {
    expect(estimate(0, 39, 5)).toEqual({ done: 0, total: 39, elapsedS: 5 });
    expect(estimate(3, 39, 240)).toEqual({ done: 3, total: 39, elapsedS: 240, leftS: 2880 });
    expect(progressText(estimate(3, 39, 240))).toBe('3 of 39 cells, 4 min elapsed, about 48 min left');
    expect(progressText(estimate(0, 2, 12))).toBe('0 of 2 cells, 12 s elapsed');
    expect(duration(3 * 3600 + 5 * 60)).toBe('3 h 5 min');
  });
});
