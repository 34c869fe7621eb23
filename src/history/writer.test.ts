import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../util/errors.js';
import { storageError } from '../util/fs-errors.js';
import { HistoryWriter } from './writer.js';

describe('HistoryWriter', () => {
  it('leaves a readable prefix after every append, then rewrites in time order', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lockchaos-')), 'history.jsonl');
    const w = new HistoryWriter(path);
    w.append({ type: 'invoke', f: 'read', process: 0, time: 10 });
    w.append({ type: 'invoke', f: 'write', process: 1, time: 5 }); // arrived late
    const prefix = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(prefix.map((o) => o.index)).toEqual([0, 1]);
    const final = w.finish();
    expect(final.map((o) => [o.index, o.time])).toEqual([
      [0, 5],
      [1, 10],
    ]);
    const stored = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(stored).toEqual(final);
  });
});

const op = (time: number) => ({ type: 'invoke' as const, f: 'acquire', process: 0, time });

describe('history writer on a failing disk', () => {
  it.skipIf(!existsSync('/dev/full'))('a full disk while recording is kept as an error, never thrown', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-writer-'));
    const path = join(dir, 'history.jsonl');
    symlinkSync('/dev/full', path);
    const w = new HistoryWriter(path);
    // On c7f3e6e this threw ENOSPC out of the IPC handler: an uncaught exception, exit 1.
    expect(() => w.append(op(1))).not.toThrow();
    expect(() => w.append(op(2))).not.toThrow();
    expect(w.error?.code).toBe('ENOSPC');
    expect(w.ops).toHaveLength(2);
    const e = storageError(w.error, path);
    expect(e).toBeInstanceOf(UserError);
    expect(e?.message).toMatch(
      /^cannot write .*history\.jsonl: the disk is full \(ENOSPC\): free space there, or give --store a folder on another disk$/,
    );
  });

  it('finishing that fails leaves no history.jsonl.tmp behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-writer-'));
    const path = join(dir, 'history.jsonl');
    const w = new HistoryWriter(path);
    w.append(op(2));
    w.append(op(1));
    // The rename cannot replace a folder that holds something: finishing fails.
    rmSync(path);
    mkdirSync(path);
    writeFileSync(join(path, 'x'), '');
    expect(() => w.finish()).toThrow();
    expect(readdirSync(dir)).toEqual(['history.jsonl']);
  });

  it('storage errors are one line naming the path and the fix; others are left alone', () => {
    const err = Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS', path: '/s/x' });
    expect(storageError(err)?.message).toBe(
      'cannot write /s/x: the file system is read-only (EROFS): give --store a folder you can write',
    );
    expect(storageError(new Error('boom'))).toBeUndefined();
    expect(storageError(new UserError('x'))).toBeUndefined();
  });
});
