import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadReplayConfig } from '../../src/cli/run.js';
import { DEFAULTS } from '../../src/run-data/config.js';
import { leftovers, lockchaos, requireEngine } from './support.js';

const skip = await requireEngine();
const work = mkdtempSync(join(tmpdir(), 'lockchaos-replay-'));

interface Op {
  type: string;
  f: string;
  process: number | string;
  time: number;
  value?: { ms?: number };
}

const history = (dir: string): Op[] =>
  readFileSync(join(dir, 'history.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** The faults that started: when (s since the origin) and for how long (ms, as drawn). */
const faults = (ops: Op[]) =>
  ops
    .filter((op) => op.process === 'nemesis' && op.type === 'ok' && op.f.startsWith('start-'))
    .map((op) => ({ f: op.f, atS: op.time / 1e9, ms: op.value?.ms }));

describe.skipIf(skip)('lockchaos run --replay, on real servers', () => {
  it('re-runs the same configuration, seed and fault schedule', async () => {
    const first = join(work, 'first');
    const a = await lockchaos([
      'run',
      '--backend',
      'redis',
      '--nemesis',
      'client-pause',
      '--fencing',
      'on',
      '--time-limit',
      '8',
      '--nemesis-interval',
      '1',
      '--seed',
      '4242',
      '--store',
      first,
    ]);
    expect(a.code, a.stderr).toBe(0);
    expect(await leftovers(a.pid)).toEqual([]);
    const dirA = realpathSync(join(first, 'latest'));

    const second = join(work, 'second');
    const b = await lockchaos(['run', '--replay', join(dirA, 'test.json'), '--store', second]);
    expect(b.code, b.stderr).toBe(0);
    expect(await leftovers(b.pid)).toEqual([]);
    const dirB = realpathSync(join(second, 'latest'));
    expect(dirB).not.toBe(dirA);

    const { recorded: recordedA, ...configA } = JSON.parse(readFileSync(join(dirA, 'test.json'), 'utf8'));
    const { recorded: recordedB, schedule, ...configB } = JSON.parse(readFileSync(join(dirB, 'test.json'), 'utf8'));
    // The same configuration, given A's faults as its schedule, and the same faults applied;
    // what each fault did (a pid) is each run's own.
    const withoutDid = (faults: { did?: unknown }[]) => faults.map(({ did: _, ...f }) => f);
    expect(configB).toEqual({ ...configA, storeDir: second });
    expect(withoutDid(schedule)).toEqual(withoutDid(recordedA.schedule));
    expect(withoutDid(recordedB.schedule)).toEqual(withoutDid(recordedA.schedule));
    expect(recordedA.schedule.length).toBeGreaterThanOrEqual(2);
    expect(configB.seed).toBe(4242);

    const fa = faults(history(dirA));
    const fb = faults(history(dirB));
    // ~8 s of faults every ~1 s lasting 0.8-2 TTL: a few of them, the same number within one
    // (the last may start or not as the time limit ends).
    expect(fa.length).toBeGreaterThanOrEqual(2);
    expect(Math.abs(fa.length - fb.length)).toBeLessThanOrEqual(1);
    const n = Math.min(fa.length, fb.length);
    // The same durations, drawn from the seeded PRNG, in the same order...
    expect(fb.slice(0, n).map((f) => [f.f, f.ms])).toEqual(fa.slice(0, n).map((f) => [f.f, f.ms]));
    // ...at the same intervals (drawn too; waiting for a client that holds the lock adds a
    // little). The schedule starts once the clients are up, which takes longer or shorter
    // with the machine's load: compare the gaps, and the first start loosely.
    expect(Math.abs((fb[0]?.atS ?? 0) - (fa[0]?.atS ?? 0))).toBeLessThan(3);
    for (let i = 1; i < n; i++) {
      const gap = (f: typeof fa) => (f[i]?.atS ?? 0) - (f[i - 1]?.atS ?? 0);
      expect(Math.abs(gap(fb) - gap(fa)), `gap before fault ${i}`).toBeLessThan(0.5);
    }
  });
});

describe('lockchaos run --replay: what it accepts', () => {
  const stored = { ...DEFAULTS, name: 'redis-lock-set-none-unfenced', seed: 9, storeDir: 'somewhere' };

  it('takes a run folder or its test.json, keeping everything but the store', async () => {
    const dir = join(work, 'run-folder');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'test.json'), JSON.stringify(stored));
    expect(await loadReplayConfig(dir)).toEqual(stored);
    expect(await loadReplayConfig(join(dir, 'test.json'), 'elsewhere')).toEqual({ ...stored, storeDir: 'elsewhere' });
  });

  it.each([
    ['a missing path', () => join(work, 'nope'), /^--replay: no such run folder or file '.*nope'$/],
    [
      'a folder without test.json',
      () => {
        const d = join(work, 'empty-folder');
        mkdirSync(d, { recursive: true });
        return d;
      },
      /^--replay: '.*empty-folder' has no test\.json: give a run folder or its test\.json$/,
    ],
    ['a file that is not JSON', () => write('bad.json', '{not json'), /^--replay: '.*bad\.json' is not JSON \(/],
    [
      'JSON that is not an object',
      () => write('list.json', '[1, 2]'),
      /is not a test configuration \(expected a JSON object/,
    ],
    [
      'a configuration missing a field',
      () => write('partial.json', JSON.stringify({ ...stored, ttlMs: undefined })),
      /^--replay: '.*partial\.json' is not a test configuration: ttlMs: missing$/,
    ],
    [
      'a configuration run would refuse',
      () => write('refused.json', JSON.stringify({ ...stored, backend: 'redlock', fencing: true })),
      /^--replay: '.*refused\.json': --fencing on: Redlock has no fencing token/,
    ],
  ])('refuses %s with one line', async (_what, path, message) => {
    await expect(loadReplayConfig(path())).rejects.toThrow(message);
  });

  it('refuses other flags with --replay, exit 3, one line', async () => {
    const dir = join(work, 'run-folder-2');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'test.json'), JSON.stringify(stored));
    const r = await lockchaos(['run', '--replay', dir, '--seed', '3', '--time-limit', '5']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim()).toBe(
      'lockchaos run: --replay runs the stored configuration as it was: drop --seed, --time-limit (only --store, --no-build, --no-latest and --json may go with it)',
    );
    const missing = await lockchaos(['run', '--replay', join(work, 'nope', 'test.json')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
  });
});

function write(name: string, text: string): string {
  const path = join(work, name);
  writeFileSync(path, text);
  return path;
}
