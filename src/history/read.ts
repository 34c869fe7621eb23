/**
 * Reading a history file in any of the formats we know, the format named or guessed.
 */
import { closeSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { MiB, openRegularFile, readRegularFile } from '../util/regular-file.js';
import { parseEdnHistory } from './edn.js';
import { HistoryError } from './errors.js';
import { parseJepsenLog } from './jepsen-log.js';
import { parseJsonl } from './jsonl.js';
import type { Op } from './op.js';
import { type ParseLimits, readingBytes } from './reading-budget.js';
import { checkDeadline, type Deadline } from './reading-deadline.js';
import { refuseDeepOps } from './value-depth.js';

export { readingBytes };

export type HistoryFormat = 'jsonl' | 'edn' | 'jepsen-log';
export const HISTORY_FORMATS: readonly HistoryFormat[] = ['jsonl', 'edn', 'jepsen-log'];

/**
 * The format from the file name (.jsonl/.json, .edn, .log/.txt), else from the content: a
 * JSON object line is ours, a `[`, `(`, `#` or `{:` opens EDN, a process followed by a
 * `:type` and an `:f` (separated by tabs or spaces) is a Jepsen log.
 */
export function guessFormat(name: string, text: string): HistoryFormat {
  const ext = extname(name).toLowerCase();
  if (ext === '.jsonl' || ext === '.json' || ext === '.ndjson') return 'jsonl';
  if (ext === '.edn') return 'edn';
  if (ext === '.log') return 'jepsen-log';
  const head = text.replace(/^(\s|;[^\n]*\n)*/, '');
  if (/^\{\s*"/.test(head)) return 'jsonl';
  if (/^[[(#]/.test(head) || /^\{\s*:/.test(head)) return 'edn';
  if (/(?:^|\s)(?:-?\d+|:nemesis)\s+:(?:invoke|ok|fail|info)\s+:/.test(text)) return 'jepsen-log';
  if (head === '') return 'jsonl';
  throw new HistoryError(
    `${basename(name)}: cannot tell the history's format from its name or content: give --format ${HISTORY_FORMATS.join('|')}`,
  );
}

/** The operations of a history text in `format`, each within the depth every reader holds to (value-depth.ts). */
export function parseHistory(text: string, format: HistoryFormat, source: string, limits: ParseLimits = {}): Op[] {
  const ops = parseAs(text, format, source, limits);
  refuseDeepOps(ops, source);
  return ops;
}

function parseAs(text: string, format: HistoryFormat, source: string, limits: ParseLimits): Op[] {
  switch (format) {
    case 'jsonl':
      return parseJsonl(text, source, 1, [], limits);
    case 'edn':
      return parseEdnHistory(text, source, limits);
    case 'jepsen-log':
      return parseJepsenLog(text, source);
  }
}

/**
 * The most a history file may hold, read at once: V8's longest string is about 512 MiB
 * (2^29 - 24 characters), and a file longer cannot be read as one text anyway.
 */
export const MAX_HISTORY_BYTES = 512 * MiB - 64;

/** The file's size in bytes (to weigh it against a memory budget before reading it); it must be a regular file. */
export function historyFileSize(path: string): number {
  const { fd, size } = openRegularFile(path, 'history');
  closeSync(fd);
  return size;
}

export interface HistoryReadLimits {
  /** Bytes read at most (never more than MAX_HISTORY_BYTES): a larger file is refused. */
  maxBytes?: number;
  /** How to get past maxBytes, for its message. */
  fix?: string;
  deadline?: Deadline;
  /** Bytes of memory reading may take (readingBytes): the parsers stop past it (ReadingOverBudget). */
  budgetBytes?: number;
}

/** A history file read and parsed, within `limits` (a regular file only: read.ts's util). */
export function readHistoryFile(
  path: string,
  format?: HistoryFormat,
  limits: HistoryReadLimits = {},
): { history: Op[]; format: HistoryFormat; textLength: number } {
  const maxBytes = Math.min(limits.maxBytes ?? MAX_HISTORY_BYTES, MAX_HISTORY_BYTES);
  // No name for the bytes: once decoded, they are garbage while the text is parsed.
  const text = utf8(
    readRegularFile(path, 'history', {
      maxBytes,
      fix:
        maxBytes === MAX_HISTORY_BYTES
          ? 'the file is too large to read at once (split it, e.g. by key)'
          : (limits.fix ?? 'split it'),
      between: () => checkDeadline(limits.deadline),
    }),
    path,
  );
  const chosen = format ?? guessFormat(path, text);
  const parseLimits: ParseLimits = {};
  if (limits.deadline !== undefined) parseLimits.deadline = limits.deadline;
  if (limits.budgetBytes !== undefined) parseLimits.budgetBytes = limits.budgetBytes;
  const history = parseHistory(text, chosen, path, parseLimits);
  checkDeadline(limits.deadline);
  return { history, format: chosen, textLength: text.length };
}

function unreadable(path: string, err: unknown): HistoryError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'no such file'
      : code === 'EISDIR'
        ? 'is a directory'
        : code === 'ERR_STRING_TOO_LONG' || err instanceof RangeError
          ? 'the file is too large to read at once (split it, e.g. by key)'
          : (err as Error).message;
  return new HistoryError(`${path}: cannot read the history: ${why}`);
}

/**
 * The file's text, which must be UTF-8: bytes that are not are an error naming the first of
 * them, never silently replaced (a replaced byte in a value changes what was observed).
 */
function utf8(bytes: Buffer, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    if (!(err instanceof TypeError)) throw unreadable(path, err); // a RangeError: too long for a string
  }
  // The shortest prefix that does not decode ends just after the first bad byte.
  let lo = 1;
  let hi = bytes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, mid), { stream: true });
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  // There the decoder saw the error; it began at the lead byte of a sequence cut short, if any.
  let at = lo - 1;
  let lead = at - 1;
  while (lead > at - 4 && lead >= 0 && (bytes[lead] & 0xc0) === 0x80) lead--;
  if (lead >= 0 && bytes[lead] >= 0xc0) {
    const length = bytes[lead] >= 0xf0 ? 4 : bytes[lead] >= 0xe0 ? 3 : 2;
    if (lead + length > at) at = lead;
  }
  let line = 1;
  for (let i = 0; i < at; i++) if (bytes[i] === 10) line++;
  const byte = bytes[at].toString(16).toUpperCase().padStart(2, '0');
  return fail(
    `${path} line ${line}: byte 0x${byte} (offset ${at}) is not UTF-8 text: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)`,
  );
}

function fail(message: string): never {
  throw new HistoryError(message);
}
