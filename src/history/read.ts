/**
 * Reading a history file in any of the formats we know, the format named or guessed.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseEdnHistory } from './edn.js';
import { HistoryError } from './errors.js';
import { parseJepsenLog } from './jepsen-log.js';
import { parseJsonl } from './jsonl.js';
import type { Op } from './op.js';

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

export function parseHistory(text: string, format: HistoryFormat, source: string): Op[] {
  switch (format) {
    case 'jsonl':
      return parseJsonl(text, source);
    case 'edn':
      return parseEdnHistory(text, source);
    case 'jepsen-log':
      return parseJepsenLog(text, source);
  }
}

export function readHistoryFile(path: string, format?: HistoryFormat): { history: Op[]; format: HistoryFormat } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory'
          : code === 'ERR_STRING_TOO_LONG'
            ? 'the file is too large to read at once (split it, e.g. by key)'
            : (err as Error).message;
    throw new HistoryError(`${path}: cannot read the history: ${why}`);
  }
  const chosen = format ?? guessFormat(path, text);
  return { history: parseHistory(text, chosen, path), format: chosen };
}
