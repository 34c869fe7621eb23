/**
 * The fault schedule as data, --stop-on-violation and `lockchaos shrink`, as a user runs
 * them on real servers; and shrink's one-line refusals, which need no Docker.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/run-data/config.js';
import { lockchaos, requireEngine, runAndRead } from './support.js';

const skip = await requireEngine();
const work = mkdtempSync(join(tmpdir(), 'lockchaos-shrink-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));

/** The faults a history shows starting, as the nemesis recorded what it did. */
const started = (history: { process: unknown; type: string; f: string; value?: unknown; time: number }[]) =>
  history.filter((op) => op.process === 'nemesis' && op.type === 'ok' && op.f.startsWith('start-'));

describe.skipIf(skip)('the schedule as data, on real servers', () => {
  it('run --schedule gives a fresh run the same faults: same kinds, nodes and cuts, at the same times', async () => {
    const args = ['--backend', 'redlock', '--workload', 'mutex', '--nemesis', 'pause-node:minority,partition'];
    const a = await runAndRead(join(work, 'a'), [
      ...args,
      '--time-limit',
      '8',
      '--nemesis-interval',
      '1',
      '--seed',
      '77',
    ]);
    expect(a.code, a.stderr).not.toBe(3);
    expect(a.left).toEqual([]);
    const recorded = json(join(a.dir, 'test.json')).recorded.schedule as { kind: string; atMs: number; did: unknown }[];
    // Per kind, in order: kinds run side by side, and a start's ok comes when it took effect.
    const byKind = <T>(items: T[], kind: (x: T) => string) =>
      Object.fromEntries(['pause-node', 'partition'].map((k) => [k, items.filter((x) => kind(x) === k)]));
    const faultsA = byKind(started(a.history), (op) => op.f.slice('start-'.length));
    const scheduled = byKind(recorded, (f) => f.kind);
    expect(Object.values(faultsA).flat().length).toBeGreaterThanOrEqual(3);
    for (const kind of ['pause-node', 'partition']) {
      expect(faultsA[kind]?.length, kind).toBeGreaterThanOrEqual(1);
      expect(scheduled[kind]?.map((f) => f.did)).toEqual(faultsA[kind]?.map((op) => op.value));
    }

    // Another seed for the clients; the faults come from the schedule.
    const b = await runAndRead(join(work, 'b'), ['--schedule', a.dir, '--seed', '78']);
    expect(b.code, b.stderr).not.toBe(3);
    expect(b.left).toEqual([]);
    const faultsB = byKind(started(b.history), (op) => op.f.slice('start-'.length));
    for (const kind of ['pause-node', 'partition']) {
      // The same faults, with the same values (nodes frozen, links cut, how long), but for
      // the moment each took effect (a node outage's inEffectFrom)...
      const what = (op: { value?: unknown }) => {
        const { inEffectFrom: _, ...value } = op.value as Record<string, unknown>;
        return value;
      };
      expect(faultsB[kind]?.map(what), kind).toEqual(faultsA[kind]?.map(what));
      // ...each taking effect after its recorded start, never earlier; begun at it, or once
      // the fault of its kind before it had healed (faults of one kind take turns), give or
      // take a loaded machine's timers. Taking effect may take longer under load (a helper
      // container to start): that is not the schedule's doing.
      const begun = b.history.filter(
        (op) => op.process === 'nemesis' && op.type === 'invoke' && op.f === `start-${kind}`,
      );
      const healed = b.history.filter((op) => op.process === 'nemesis' && op.type === 'ok' && op.f === `stop-${kind}`);
      for (const [i, op] of (faultsB[kind] ?? []).entries()) {
        const at = scheduled[kind]?.[i]?.atMs ?? Number.NaN;
        expect(op.time / 1e6).toBeGreaterThanOrEqual(at - 5);
        const turn = Math.max(at, i > 0 ? (healed[i - 1]?.time ?? Number.NaN) / 1e6 : 0);
        expect((begun[i]?.time ?? Number.NaN) / 1e6).toBeGreaterThanOrEqual(at - 5);
        expect((begun[i]?.time ?? Number.NaN) / 1e6).toBeLessThan(turn + 5000);
      }
    }
    expect(json(join(b.dir, 'test.json')).seed).toBe(78);
  });

  it('--stop-on-violation ends an unfenced run at its first overlap; shrink finds a smaller reproducer', async () => {
    const r = await runAndRead(join(work, 'stop'), [
      ...['--backend', 'redis', '--nemesis', 'client-pause', '--fencing', 'off'],
      // Every pause twice the TTL: each outlives its holder's lease, so that a trial of the
      // shrink reproduces the overlap whatever its seed (drawn from 0.8-2x, a CI run's one
      // fault was a pause of 0.92 TTL that its three trials did not reproduce).
      ...['--pause-ttl', '2'],
      ...['--time-limit', '30', '--nemesis-interval', '1', '--stop-on-violation'],
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.left).toEqual([]);
    const results = json(join(r.dir, 'results.json'));
    expect(results.valid).toBe(false);
    expect(results.conditions).toEqual([]);
    expect(results.stoppedEarly.atS).toBeLessThan(30);
    expect(readFileSync(join(r.dir, 'report.html'), 'utf8')).toContain('id="stopped-early"');
    expect(r.stdout).toMatch(
      /stopped early at [\d.]+ s of 30 s \(--stop-on-violation\): two clients held the lock at once/,
    );
    // The workload ended early: no client op starts after the stop plus its grace.
    const lastClientOp = Math.max(...r.history.filter((op) => op.process !== 'nemesis').map((op) => op.time));
    expect(lastClientOp / 1e9).toBeLessThan(results.stoppedEarly.atS + 10);

    const s = await lockchaos(['shrink', r.dir, '--trials', '1', '--min-hits', '1', '--max-runs', '3']);
    expect(s.code, s.stderr).toBe(0);
    const out = join(r.dir, 'shrink');
    const summary = json(join(out, 'shrink.json'));
    expect(summary.smaller).toBe(true);
    expect(summary.runs).toBe(3);
    expect(summary.stoppedBy).toBe('max-runs');
    expect(readFileSync(join(out, 'candidates.jsonl'), 'utf8').trim().split('\n')).toHaveLength(3);
    const minimal = json(join(out, 'minimal-schedule.json'));
    expect(minimal.format).toBe('lockchaos-schedule/1');
    expect(minimal.faults.length).toBeGreaterThanOrEqual(1);
    expect(existsSync(join(out, 'minimal', 'report.html'))).toBe(true);
    const page = readFileSync(join(out, 'shrink.html'), 'utf8');
    expect(page).toContain('lockchaos run --schedule');
    expect(page).toContain('A smaller reproducer');
    expect(s.stdout).toMatch(/^smallest reproducer: \d+ faults? \(client-pause at/m);
  });
});

describe('lockchaos shrink: what it refuses, in one line', () => {
  const run = (name: string, files: Record<string, unknown>) => {
    const dir = join(work, name);
    mkdirSync(dir, { recursive: true });
    for (const [file, content] of Object.entries(files)) {
      writeFileSync(join(dir, file), typeof content === 'string' ? content : JSON.stringify(content));
    }
    return dir;
  };
  const config = {
    ...DEFAULTS,
    name: 'redis-lock-set-client-pause-unfenced',
    nemesis: 'client-pause',
    seed: 1,
    schedule: [{ kind: 'client-pause', atMs: 2000, durationMs: 1500, seed: 5 }],
  };

  it.each([
    ['a missing folder', () => join(work, 'nope'), /^lockchaos shrink: no such run folder or file '.*nope'$/],
    ['a folder that is not a run', () => run('empty', {}), /has no test\.json: give a run folder or its test\.json$/],
    [
      'a run cut short by a crash',
      () => run('cut', { 'test.json': config, 'history.jsonl': '' }),
      /'.*cut' has no verdict \(no results\.json\): the run was cut short; run it again \(lockchaos run --replay .*\) and shrink that$/,
    ],
    [
      'a valid run',
      () => run('valid', { 'test.json': config, 'history.jsonl': '', 'results.json': { valid: true, results: [] } }),
      /'.*valid' is valid: shrink looks for the smallest run that still fails, so give it an invalid run$/,
    ],
    [
      'an unknown run',
      () =>
        run('unknown', { 'test.json': config, 'history.jsonl': '', 'results.json': { valid: 'unknown', results: [] } }),
      /'.*unknown' is unknown: shrink looks for/,
    ],
    [
      'a run that recorded no schedule',
      () =>
        run('old', {
          'test.json': { ...config, schedule: undefined },
          'history.jsonl': '',
          'results.json': { valid: false, results: [] },
        }),
      /'.*old' recorded no fault schedule \(an older run\): run it again/,
    ],
  ])('refuses %s: exit 3', async (_what, dir, message) => {
    const r = await lockchaos(['shrink', dir()]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr.trim()).toMatch(message);
  });

  it('refuses bad budgets before touching the run folder', async () => {
    const dir = run('budget', {
      'test.json': config,
      'history.jsonl': '',
      'results.json': { valid: false, results: [] },
    });
    mkdirSync(join(dir, 'shrink'));
    cpSync(join(dir, 'test.json'), join(dir, 'shrink', 'kept.json'));
    for (const [flag, value] of [
      ['--trials', '0'],
      ['--min-hits', '4'],
      ['--max-runs', '-1'],
      ['--time-limit', 'x'],
    ]) {
      const r = await lockchaos(['shrink', dir, flag as string, value as string]);
      expect(r.code, `${flag} ${value}`).toBe(3);
      expect(r.stderr.trim()).toMatch(new RegExp(`^lockchaos shrink: ${flag}`));
    }
    expect(existsSync(join(dir, 'shrink', 'kept.json'))).toBe(true);
  });
});
