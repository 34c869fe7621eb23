/**
 * Jepsen's text history: the lines `jepsen.util/log-op` writes to jepsen.log and that older
 * Knossos data files hold, one op per line:
 *
 *     process <tab> :type <tab> :f <tab> value [<tab> error]
 *
 * e.g. `3	:ok	:read	[1 2]` or `:nemesis	:info	:start	nil`, the value in EDN. The line may
 * sit behind a log prefix: `INFO  jepsen.util - ` (older Jepsen),
 * `2020-04-20 10:03:41,583{GMT}	INFO	[jepsen worker 3] jepsen.util: ` (newer), or any
 * `LEVEL logger - `. Other log lines (setup, teardown, stack traces) are skipped: a line is an
 * op line when, after its prefix, it starts with a process and a tab. An op line that does
 * not parse is an error naming its line, not something to skip: a silently dropped op
 * changes the verdict.
 */
import { ednToJs, parseEdnValue } from './edn.js';
import { HistoryError } from './errors.js';
import type { Op } from './op.js';
import { toOp } from './validate.js';

/** Everything up to and including jepsen.util's marker, in its old and new log layouts. */
const UTIL_PREFIX = /^.*?\bjepsen\.util(?: - |: )/;
/** Any other logger's prefix: a level, a logger name, ' - '. */
const LEVEL_PREFIX = /^.*?\b(?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\s+(?:\[[^\]]*\]\s+)?[\w.$-]+(?: - |: )/;
/** An op line starts with a process (an integer or :nemesis) and a tab. */
const OP_START = /^(?:-?\d+|:[\w.-]+)\t/;
const TYPES = new Set([':invoke', ':ok', ':fail', ':info']);

export function parseJepsenLog(text: string, source = 'jepsen.log'): Op[] {
  const ops: Op[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].replace(/\r$/, '');
    if (raw.trim() === '') continue;
    const where = `${source} line ${i + 1}`;
    let message: string;
    let marked = false;
    const util = UTIL_PREFIX.exec(raw);
    if (util) {
      message = raw.slice(util[0].length);
      marked = true;
    } else if (OP_START.test(raw)) {
      message = raw;
    } else {
      const level = LEVEL_PREFIX.exec(raw);
      message = level ? raw.slice(level[0].length) : raw;
    }
    if (!OP_START.test(message)) {
      // jepsen.util also logs things that are not ops; only a line shaped like an op must parse.
      if (marked && /^\S+\t/.test(message)) {
        throw new HistoryError(
          `${where}: expected an op line 'process<TAB>:type<TAB>:f<TAB>value', but '${short(message.split('\t')[0])}' is not a process (an integer or :nemesis)`,
        );
      }
      continue;
    }
    ops.push(parseOpLine(message, where, ops.length));
  }
  if (ops.length === 0 && text.trim() !== '') {
    throw new HistoryError(
      `${source}: no operation lines found: expected lines like '0<TAB>:invoke<TAB>:read<TAB>nil', possibly behind a log prefix`,
    );
  }
  return ops;
}

function parseOpLine(message: string, where: string, position: number): Op {
  const fields = message.split('\t');
  if (fields.length < 3) {
    throw new HistoryError(
      `${where}: truncated op line: expected 'process<TAB>:type<TAB>:f<TAB>value', got only ${fields.length} field${fields.length === 1 ? '' : 's'}`,
    );
  }
  const [processText, typeText, fText] = fields;
  if (!TYPES.has(typeText)) {
    throw new HistoryError(`${where}: unknown type '${short(typeText)}': expected :invoke, :ok, :fail or :info`);
  }
  let value: unknown;
  const valueText = fields.length > 3 ? fields[3].trim() : '';
  if (valueText !== '') {
    try {
      value = ednToJs(parseEdnValue(valueText, where));
    } catch (err) {
      const why =
        err instanceof HistoryError
          ? err.message.replace(`${where}: `, '').replace(`${where} line 1: `, '')
          : String(err);
      throw new HistoryError(`${where}: cannot read the value '${short(valueText)}' as EDN: ${why}`);
    }
  }
  const error = fields.length > 4 ? fields.slice(4).join('\t').trim() : '';
  const proc = processText === ':nemesis' ? 'nemesis' : /^-?\d+$/.test(processText) ? Number(processText) : processText;
  return toOp(
    {
      type: typeText.slice(1),
      f: fText.replace(/^:/, ''),
      process: proc,
      value,
      error: error === '' ? undefined : error,
    },
    where,
    position,
  );
}

function short(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
