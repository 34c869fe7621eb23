/**
 * Faults at the code points, on real Redis with real programs: two small lock libraries
 * (test/fixtures/libraries) with a bug at one point of their code, each caught there with
 * the library unchanged, named by what happened; a built-in client stopped at a standard
 * point; and the coverage each run reports. The acceptance over 20 seeds each is
 * test/fixtures/libraries/code-points.yaml (a campaign: too long for CI).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Op } from '../../src/history/op.js';
import { DEFAULTS } from '../../src/run-data/parameters.js';
import { prepareRun } from '../../src/run-data/prepare.js';
import { run } from '../../src/runner/run.js';
import { packageRoot } from '../../src/util/paths.js';
import { freshStore, requireEngine } from './support.js';

const skip = await requireEngine();
const store = freshStore();
const library = (name: string) => `/usr/bin/python3 ${join(packageRoot, 'test/fixtures/libraries', name, 'client.py')}`;

const config = (more: Partial<typeof DEFAULTS>) => ({
  ...DEFAULTS,
  name: '',
  seed: 11,
  storeDir: store,
  backend: 'redis',
  timeLimitS: 10,
  ttlMs: 1000,
  holdMs: 100,
  nemesisIntervalS: 2,
  ...more,
});

/** The process state letter of pid (R, S, T ...), from /proc. */
const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];

const row = (r: Awaited<ReturnType<typeof run>>, point: string) => r.coverage?.find((c) => c.point === point);

describe.skipIf(skip)('faults at the code points', () => {
  it("quicklock's DEL caught on the wire: the client stopped there for real, another holder's lock released", async () => {
    const states: string[] = [];
    const r = await run(
      await prepareRun(
        config({
          clientCommand: library('quicklock'),
          nemesis: 'wire:DEL',
          fencing: false,
          stopOnViolation: true,
        }),
      ),
      {
        latest: false,
        progress: () => ({
          onOp(op: Op) {
            if (op.f !== 'start-wire' || op.type !== 'ok') return;
            const v = op.value as { pid: number; programGroup: number };
            const python = execFileSync('pgrep', ['-g', String(v.programGroup), '-x', 'python3'], {
              encoding: 'utf8',
            });
            states.push(`${state(v.pid)}${state(Number(python.trim().split('\n')[0]))}`);
          },
          finish() {},
          stop() {},
        }),
      },
    );
    expect(r.conditions).toEqual([]);
    expect(r.valid).toBe(false);
    const me = r.results.find((c) => c.checker === 'mutual-exclusion');
    expect(me?.summary, `${r.stoppedEarly?.why} / ${me?.summary}`).toMatch(
      /another holder's lock released: process \d+'s release/,
    );
    // The worker and the program itself were stopped (T) while the DEL waited.
    expect(states.length).toBeGreaterThan(0);
    expect(states.every((s) => s === 'TT')).toBe(true);
    expect(row(r, 'wire:DEL')).toMatchObject({ fault: 'wire:pause' });
    expect(row(r, 'wire:DEL')?.followed).toBeGreaterThan(0);
    expect(row(r, 'wire:SET')?.reached).toBeGreaterThan(0);
  });

  it("tokenlock's INCRBY caught on the wire, fenced: a stale holder's token larger than the next holder's", async () => {
    const r = await run(
      await prepareRun(config({ clientCommand: library('tokenlock'), nemesis: 'wire:INCRBY', fencing: true })),
      { latest: false },
    );
    expect(r.conditions).toEqual([]);
    const fencing = r.results.find((c) => c.checker === 'fencing');
    expect(fencing?.valid).toBe(false);
    expect(fencing?.summary).toMatch(/outranked a holder whose lease stood/);
    expect(fencing?.summary).toMatch(/a stale holder's token larger than the next holder's/);
    expect(r.valid).toBe(false);
  });

  it('redis-py Lock, its client killed before it releases: a fresh client takes its place, the lease lapses, valid', async () => {
    const r = await run(
      await prepareRun(
        config({
          clientCommand: `/usr/bin/python3 ${join(packageRoot, 'examples/clients/redis-py-lock/client.py')}`,
          nemesis: 'client-kill:at=before-release',
          fencing: false,
        }),
      ),
      { latest: false },
    );
    expect(r.conditions).toEqual([]);
    const kills = r.history.filter((op) => op.f === 'start-client-kill' && op.type === 'ok');
    expect(kills.length).toBeGreaterThan(0);
    for (const kill of kills) {
      const { process, at } = kill.value as { process: number; at: string };
      expect(at).toBe('before-release');
      // The killed process's hold ends on the record, by the harness, and it issues nothing after.
      const after = r.history.filter((op) => op.process === process && op.index > kill.index);
      expect(after.every((op) => op.error?.startsWith('harness: the nemesis killed the client'))).toBe(true);
    }
    // The fresh clients went on: processes beyond the first five acquired the lock.
    expect(r.history.some((op) => op.f === 'acquire' && op.type === 'ok' && (op.process as number) >= 5)).toBe(true);
    expect(row(r, 'before-release')).toMatchObject({ fault: 'client-kill', hits: kills.length });
    expect(r.valid).toBe(true);
  });

  it('the built-in redis client stopped after its grant, until another client holds: two holders at once', async () => {
    const r = await run(
      await prepareRun(config({ nemesis: 'client-pause:at=after-grant', fencing: false, stopOnViolation: true })),
      { latest: false },
    );
    expect(r.conditions).toEqual([]);
    expect(r.valid).toBe(false);
    const hit = r.history.find((op) => op.f === 'start-client-pause' && op.type === 'ok');
    expect(hit?.value).toMatchObject({ at: 'after-grant' });
    expect(row(r, 'after-grant')).toMatchObject({ fault: 'client-pause' });
    expect(row(r, 'after-grant')?.followed).toBeGreaterThan(0);
    expect(row(r, 'in-extend')).toMatchObject({ reached: 0 });
  });

  it('a node paused while a client is kept at a point: the client waits there, the coverage counts the hit', async () => {
    // Redis frozen while the built-in client is stopped before its release: it goes on
    // from the point once another client holds, or at 0.8 of its lease, the node back or
    // not (kept-holder.ts), and the lock keeps its promise (fenced).
    const r = await run(
      await prepareRun(config({ nemesis: 'pause-node:one:at=before-release', fencing: true, timeLimitS: 8 })),
      { latest: false },
    );
    expect(r.conditions).toEqual([]);
    const starts = r.history.filter((op) => op.f === 'start-pause-node' && op.type === 'ok');
    expect(starts.length).toBeGreaterThan(0);
    for (const s of starts) {
      expect(s.value).toMatchObject({ nodes: ['redis-1'], at: 'before-release', holder: { at: 'before-release' } });
      // The stop says how long the client was kept, and whether another held meanwhile.
      const stop = r.history.find((op) => op.f === 'stop-pause-node' && op.type === 'ok' && op.index > s.index);
      const kept = (stop?.value as { holder?: { keptMs?: unknown; anotherHeld?: unknown } } | undefined)?.holder;
      if (stop) expect(kept).toMatchObject({ keptMs: expect.any(Number), anotherHeld: expect.any(Boolean) });
    }
    expect(row(r, 'before-release')).toMatchObject({ fault: 'pause-node', hits: starts.length });
    expect(r.valid).toBe(true);
  });
});
