import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from './errors.js';
import { makeDirs } from './make-dirs.js';

describe('makeDirs', () => {
  it('creates the folders that are missing, and leaves those that exist', () => {
    const root = mkdtempSync(join(tmpdir(), 'make-dirs-'));
    makeDirs(join(root, 'a', 'b', 'c'));
    expect(existsSync(join(root, 'a', 'b', 'c'))).toBe(true);
    makeDirs(join(root, 'a', 'b'));
    makeDirs(root);
  });

  it('a parent that takes no folders (/proc, where mkdir -p spun forever): one line at once', () => {
    // makeDirs is synchronous: that it throws at all is that it did not spin (a spin never
    // returns); the folder named is the first it tried, so it gave up at its first refusal.
    expect(() => makeDirs('/proc/x/runs')).toThrow(
      new UserError(
        'cannot create the folder /proc/x: the folder it is in takes no new folders (ENOENT): give --store a folder you can write',
      ),
    );
  });

  it('a file in the way: named, with the fix', () => {
    const root = mkdtempSync(join(tmpdir(), 'make-dirs-'));
    writeFileSync(join(root, 'f'), '');
    expect(() => makeDirs(join(root, 'f', 'runs'), 'give --out a folder')).toThrow(
      `cannot create the folder ${join(root, 'f', 'runs')}: a part of the path is a file (ENOTDIR): give --out a folder`,
    );
  });
});
