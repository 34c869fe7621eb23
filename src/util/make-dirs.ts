/**
 * mkdir -p, a folder at a time. Node's mkdirSync(path, { recursive: true }) spins forever at
 * 100% CPU, deaf to Ctrl-C, when the parent refuses a new folder with ENOENT (--store
 * /proc/x: mkdir there answers ENOENT, and it retries the parent that exists).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UserError } from './errors.js';

const WHY: Record<string, string> = {
  ENOENT: 'the folder it is in takes no new folders',
  ENOTDIR: 'a part of the path is a file',
};

/** Creates `path` and the folders it is in; a folder that cannot be created there is a UserError ending in `fix`. */
export function makeDirs(path: string, fix = 'give --store a folder you can write'): void {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      mkdirSync(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'EEXIST') continue;
      const why = WHY[code];
      if (why) throw new UserError(`cannot create the folder ${dir}: ${why} (${code}): ${fix}`);
      throw err; // EACCES, ENOSPC...: storageError's to word
    }
  }
}
