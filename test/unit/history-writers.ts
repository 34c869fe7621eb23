/**
 * Histories written out, for tests that feed files to the readers and to `check`. The
 * harness itself writes only JSON Lines, op by op (history/writer.ts).
 */
import { Keyword, printEdn } from '../../src/history/edn.js';
import type { Op } from '../../src/history/op.js';

/** A history as JSON Lines, one op per line. */
export function toJsonl(history: readonly Op[]): string {
  let out = '';
  for (const op of history) out += `${JSON.stringify(op)}\n`;
  return out;
}

/** A name as an EDN keyword where it can be one, else as a string. */
const keywordOrString = (name: string) =>
  printEdn(/^[A-Za-z*+!_?<>=][\w*+!?<>=.-]*$/.test(name) ? new Keyword(name) : name);

function printOp(op: Op): string {
  const parts = [
    `:index ${op.index}`,
    `:time ${op.time}`,
    `:type :${op.type}`,
    `:process ${op.process === 'nemesis' ? ':nemesis' : op.process}`,
    `:f ${keywordOrString(op.f)}`,
  ];
  if (op.key !== undefined) parts.push(`:key ${printEdn(op.key)}`);
  parts.push(`:value ${printEdn(op.value)}`);
  if (op.error !== undefined) parts.push(`:error ${printEdn(op.error)}`);
  return `{${parts.join(', ')}}`;
}

/** A history as an EDN vector of op maps, one per line, as Knossos and Elle read them. */
export function toEdn(history: readonly Op[]): string {
  if (history.length === 0) return '[]\n';
  return `[${history.map(printOp).join('\n ')}]\n`;
}
