/**
 * A file written whole or not at all: the text goes to a temporary file beside it, then is
 * renamed over it. Written in place, a full disk left a 0-byte report.html where a good one
 * had been.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export function writeFileAtomic(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    // Named by the file meant: not the temporary one, nor nothing (a write has no path).
    const e = err as NodeJS.ErrnoException;
    if (e.code) e.path = path;
    throw err;
  }
}
