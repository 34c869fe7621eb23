/**
 * Text from outside (a history's operation names, keys, values; a client program's lines)
 * made safe to print on a terminal: every character that does not print is shown escaped,
 * JSON-style, so that a hostile file cannot move the cursor, recolour the terminal, clear
 * the screen or hide text behind a carriage return or a bidi override.
 *
 * Escaped: the C0 controls, DEL and the C1 controls (\p{Cc}: ESC, CR, BEL, CSI 0x9b...), the
 * format characters (\p{Cf}: bidi overrides and isolates, zero-width characters, the BOM,
 * soft hyphen), the line and paragraph separators U+2028/U+2029 and lone surrogates. \b \t
 * \n \f \r as JSON writes them, the others as \uXXXX (a character past U+FFFF as its two
 * UTF-16 halves, as JSON does). Everything else, printable ASCII first, passes unchanged,
 * and so does the backslash: the output of JSON.stringify stays JSON of the same value, and
 * printable(printable(s)) is printable(s).
 */

const NON_PRINTING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const ALL_NON_PRINTING = new RegExp(NON_PRINTING.source, 'gu');

const SHORT: Record<string, string> = { '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };

function escaped(ch: string): string {
  const short = SHORT[ch];
  if (short !== undefined) return short;
  let out = '';
  for (let i = 0; i < ch.length; i++) out += `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/** `text` with every character that does not print escaped (newlines too: one line in, one line out). */
export function printable(text: string): string {
  // Most text has nothing to escape: tested first, it is returned as it is.
  if (!NON_PRINTING.test(text)) return text;
  return text.replace(ALL_NON_PRINTING, escaped);
}

/** `text` of several lines, each made printable: its own newlines stay, nothing else that does not print. */
export function printableLines(text: string): string {
  return text.split('\n').map(printable).join('\n');
}
