/**
 * summary.json's one reader: what it refuses in one line, what it reads of an older file,
 * and that nothing of the folder's data is cast into shape instead of checked.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { userErrorOf } from '../../test/unit/user-error.js';
import { packageRoot } from '../util/paths.js';
import { readSummary } from './read-summary.js';
import { talliesOf } from './tallies.js';

const root = mkdtempSync(join(tmpdir(), 'lockchaos-read-summary-'));

/** A campaign folder whose summary.json is `summary` (an object, or text as it is). */
function folder(name: string, summary: unknown): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), typeof summary === 'string' ? summary : JSON.stringify(summary));
  return dir;
}

const BARE = {
  name: 'n',
  source: 'n.yaml',
  shard: null,
  totalCells: 1,
  startedAt: '2026-12-01T02:00:00.000Z',
  finishedAt: '2026-12-01T02:01:00.000Z',
  interrupted: false,
  cells: [],
};

describe("summary.json's reader", () => {
  it('reads a file from before the stamp and the state as schema 1, its state from its finish', () => {
    const s = readSummary(folder('bare', BARE));
    expect(s).toMatchObject({ schema: 1, state: 'finished', met: true, totals: { cells: 0 } });
    expect(s.lockchaos).toBeUndefined();
    expect(s.written).toEqual({ finishedAt: BARE.finishedAt, interrupted: false });
    // A page given the record shows its tallies, not tallies of its own.
    expect(talliesOf(s).totals).toBe(s.totals);
    const { shard: _, ...inMemory } = BARE;
    expect(talliesOf({ ...inMemory, dir: root, state: 'finished', met: true }).totals).toEqual(s.totals);
  });

  it('refuses a value nested past MAX_DEPTH in one line, before any field is read', () => {
    const deep = `{"name":"n","totalCells":1,"cells":[],"x":${'['.repeat(100)}${']'.repeat(100)}}`;
    expect(userErrorOf(() => readSummary(folder('deep', deep)))).toMatch(
      /summary\.json nests more than 64 levels deep: give the summary\.json lockchaos campaign wrote$/,
    );
  });

  it('takes a runner only as a host and a pid: another shape is no runner (the state then goes by the heartbeat)', () => {
    const s = readSummary(
      folder('runner', { ...BARE, finishedAt: '', state: 'running', runner: { host: 1, pid: 'x' } }),
    );
    expect(s.written.runner).toBeUndefined();
    expect(s.state).toBe('cut-short');
    expect(s.cutShortBy).toMatch(/^no word from its runner/);
  });

  it('is the only reader, and the folder data is checked, not cast (no `as` on it)', () => {
    const dir = join(packageRoot, 'src', 'campaign-data');
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => join(dir, f));
    const readers = ['campaign/merge.ts', 'campaign/summary-md.ts', 'serve/server.ts', 'cli/job-summary.ts'];
    const casts = [...files, ...readers.map((f) => join(packageRoot, 'src', f))].flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/?\*|\/\/)/.test(line))
        .filter((line) =>
          / as (?!const\b|Error\)|NodeJS\.ErrnoException\)|AddressInfo\)|string( \| undefined)?[;),])/.test(line),
        )
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(casts).toEqual([]);
    const parses = [...files, ...readers.map((f) => join(packageRoot, 'src', f))].filter(
      (file) => !file.endsWith('read-summary.ts') && /JSON\.parse\(/.test(readFileSync(file, 'utf8')),
    );
    expect(parses).toEqual([]);
  });
});
