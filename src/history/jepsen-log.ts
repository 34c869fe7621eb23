/**
 * Jepsen's text history: the lines `jepsen.util/log-op` writes to jepsen.log and that older
 * Knossos data files hold, one op per line:
 *
 *     process <tab> :type <tab> :f <tab> value [<tab> error]
 *
 * e.g. `3	:ok	:read	[1 2]` or `:nemesis	:info	:start	nil`, the value in EDN. The line may
 * sit behind a log prefix: `INFO  jepsen.util - ` (older Jepsen),
 * `2020-04-20 10:03:41,583{GMT}	INFO	[jepsen worker 3] jepsen.util: ` (newer), or any
 * `LEVEL logger - `. Logs whose tabs were expanded to spaces (`INFO  jepsen.util - 1   :invoke
 * :write  3`) are read alike: any run of whitespace separates the fields, as in Porcupine's
 * parser; the value is then the first EDN form after the f, and what follows it the error.
 * Other log lines (setup, teardown, stack traces) are skipped: a line is an op line when,
 * after its prefix, it starts with a process and a tab, or with a process, whitespace and a
 * keyword (prose rarely does). An op line that does not parse is an error naming its line,
 * not something to skip: a silently dropped op changes the verdict.
 */

import { plural } from '../util/plural.js';
import { ednToJs, parseEdnPrefix, parseEdnValue } from './edn.js';
import { HistoryError } from './errors.js';
import type { Op } from './op.js';
import { toOp } from './validate.js';

/**
 * Everything up to and including jepsen.util's marker, in its old and new log layouts, with
 * any run of whitespace around the ' - ' and after the ':' (as Porcupine's parser reads them).
 */
const UTIL_PREFIX = /^.*?\bjepsen\.util(?:\s+-\s+|:\s+)/;
/** Any other logger's prefix: a level, a logger name, ' - '. */
const LEVEL_PREFIX = /^.*?\b(?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL)\s+(?:\[[^\]]*\]\s+)?[\w.$-]+(?:\s+-\s+|:\s+)/;
/** After the process: a tab, or (tabs expanded) whitespace and the type keyword. */
const AFTER_PROCESS = String.raw`(?:\t|[ \t]+:[\w.-]+(?:\s|$))`;
/** An op line starts with a process (an integer or :nemesis) and then AFTER_PROCESS. */
const OP_START = new RegExp(String.raw`^(?:-?\d+|:[\w.-]+)${AFTER_PROCESS}`);
/** Shaped like an op line, whatever its first field. */
const OP_SHAPED = new RegExp(String.raw`^\S+${AFTER_PROCESS}`);
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
      if (marked && OP_SHAPED.test(message)) {
        throw new HistoryError(
          `${where}: expected an op line 'process<TAB>:type<TAB>:f<TAB>value', but '${short(message.split(/\s/)[0])}' is not a process (an integer or :nemesis)`,
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
  // process, type and f never hold whitespace; the value may ([1 2]).
  const head = /^(\S+)(?:\s+(\S+))?(?:\s+(\S+))?(\s[\s\S]*)?$/.exec(message) as RegExpExecArray;
  const fields = head.slice(1, 4).filter((f) => f !== undefined);
  if (fields.length < 3) {
    throw new HistoryError(
      `${where}: truncated op line: expected 'process<TAB>:type<TAB>:f<TAB>value', got only ${plural(fields.length, 'field')}`,
    );
  }
  const [processText, typeText, fText] = fields;
  if (!TYPES.has(typeText)) {
    throw new HistoryError(`${where}: unknown type '${short(typeText)}': expected :invoke, :ok, :fail or :info`);
  }
  const { value, error } = valueAndError(head[4] ?? '', where);
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

/**
 * What follows the f: with tabs, the value's field and the error's; with tabs expanded to
 * spaces, the first EDN form and the text after it.
 */
function valueAndError(tail: string, where: string): { value: unknown; error: string } {
  const tabbed = tail.startsWith('\t');
  const fields = tabbed ? tail.slice(1).split('\t') : [tail];
  const valueText = fields[0].trim();
  if (valueText === '') return { value: undefined, error: fields.slice(1).join('\t').trim() };
  try {
    if (tabbed) return { value: ednToJs(parseEdnValue(valueText, where)), error: fields.slice(1).join('\t').trim() };
    const { value, rest } = parseEdnPrefix(valueText, where);
    return { value: ednToJs(value), error: rest.trim() };
  } catch (err) {
    const why =
      err instanceof HistoryError
        ? err.message.replace(`${where}: `, '').replace(`${where} line 1: `, '')
        : String(err);
    throw new HistoryError(`${where}: cannot read the value '${short(valueText)}' as EDN: ${why}`);
  }
}

function short(s: string): string {
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}
