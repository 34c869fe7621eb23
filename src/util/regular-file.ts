/**
 * Every reader has a bound. A path that is not a regular file (a device such as /dev/zero,
 * a FIFO, a socket, a folder) is refused before a byte is read: it may never end, and its
 * size says nothing. A regular file past the reader's limit is refused by its size, and
 * read no further than the limit should it grow while read. Each refusal is one UserError
 * line that names the file and the fix.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from './errors.js';

export const MiB = 2 ** 20;

/** Bytes in words: whole MiB, or KiB under one. */
export const sizeWords = (bytes: number) =>
  bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${Math.round(bytes / MiB)} MiB`;

/**
 * `path` opened for reading, a regular file (`what` names it in messages: "history"): its
 * descriptor and size. O_NONBLOCK: opening a FIFO would otherwise wait for a writer.
 */
export function openRegularFile(path: string, what: string): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : (code ?? String(err));
    throw new UserError(`${path}: cannot read the ${what}: ${why}`);
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    const kind = stat.isDirectory()
      ? 'a folder'
      : stat.isFIFO()
        ? 'a FIFO'
        : stat.isCharacterDevice() || stat.isBlockDevice()
          ? 'a device'
          : 'a socket';
    throw new UserError(
      `${path}: is ${kind}, not a regular file: give the ${what} as a regular file (save a stream to one first)`,
    );
  }
  return { fd, size: stat.size };
}

export interface ReadLimits {
  /** The most bytes read; a file larger is refused. */
  maxBytes: number;
  /** Why that limit, and the way past it: "give a larger --memory-limit". */
  fix: string;
  /** Called between chunks (a time limit throws from it). */
  between?: () => void;
}

const CHUNK = 16 * MiB;

/** The bytes of a regular file, at most `maxBytes` of them (see the top of this file). */
export function readRegularFile(path: string, what: string, limits: ReadLimits): Buffer {
  const { fd, size } = openRegularFile(path, what);
  const tooLarge = (bytes: string) =>
    new UserError(`${path}: the ${what} is ${bytes}, past the limit of ${sizeWords(limits.maxBytes)}: ${limits.fix}`);
  try {
    if (size > limits.maxBytes) throw tooLarge(sizeWords(size));
    // Room for the file as its size says, and one byte more: a file that grew while read
    // (a run's history being written) gets more room, up to one byte past the limit.
    let buffer = Buffer.allocUnsafe(Math.min(limits.maxBytes + 1, size + 1));
    let length = 0;
    for (;;) {
      limits.between?.();
      if (length === buffer.length) {
        if (length > limits.maxBytes) break;
        const grown = Buffer.allocUnsafe(Math.min(limits.maxBytes + 1, length * 2 + CHUNK));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const n = readSync(fd, buffer, length, Math.min(CHUNK, buffer.length - length), null);
      if (n === 0) break;
      length += n;
    }
    if (length > limits.maxBytes) throw tooLarge(`more than ${sizeWords(limits.maxBytes)}`);
    return buffer.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}
