import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable, printableLines } from './printable.js';

/** Any character that does not print: C0, DEL, C1, format characters, separators, lone surrogates. */
const NON_PRINTING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** Characters a hostile file would use, mixed into ordinary text. */
const hostileChar = fc.constantFrom(
  '\x1b',
  '\r',
  '\n',
  '\x07',
  '\x08',
  '\x00',
  '\x7f',
  '\x9b',
  '\x85',
  '\u2028',
  '\u202e',
  '\u2066',
  '\u200b',
  '\ufeff',
  '\ud800',
  '\udc00',
  '\u{e0041}',
);
const hostileText = fc
  .array(fc.oneof(hostileChar, fc.string({ unit: 'binary', maxLength: 4 }), fc.string({ maxLength: 4 })), {
    maxLength: 20,
  })
  .map((parts) => parts.join(''));

describe('printable', () => {
  it('shows escapes, CR, BEL, C1 controls and bidi overrides as visible escapes', () => {
    expect(printable('a\x1b[31mred\x1b[0m')).toBe('a\\u001b[31mred\\u001b[0m');
    expect(printable('ok\rFAIL\x07')).toBe('ok\\rFAIL\\u0007');
    expect(printable('\x9b2J\x7f')).toBe('\\u009b2J\\u007f');
    expect(printable('tab\there\nnext')).toBe('tab\\there\\nnext');
    expect(printable('\u202eevil')).toBe('\\u202eevil');
    expect(printable('lone \ud800 half')).toBe('lone \\ud800 half');
    expect(printable('\u{e0041}')).toBe('\\udb40\\udc41');
  });

  it('leaves printable text alone, Unicode letters and emoji included', () => {
    for (const s of ['', 'acquire', 'op 3 (process 1: acquire)', 'héllo wörld', '鎖', '🔒', 'a\\u001b'])
      expect(printable(s)).toBe(s);
  });

  it("printableLines keeps the text's own newlines and escapes the rest", () => {
    expect(printableLines('one\x1b[2J\ntwo\r')).toBe('one\\u001b[2J\ntwo\\r');
  });

  it('property: its output never holds a character that does not print', () => {
    fc.assert(
      fc.property(hostileText, (s) => {
        const shown = printable(s);
        expect(NON_PRINTING.test(shown)).toBe(false);
        for (let i = 0; i < shown.length; i++) {
          const c = shown.charCodeAt(i);
          expect(c >= 0x20 && (c < 0x7f || c > 0x9f)).toBe(true);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('property: printable ASCII passes unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }), (s) => {
        expect(printable(s)).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('property: idempotent, and JSON stays JSON of the same value', () => {
    fc.assert(
      fc.property(hostileText, (s) => {
        expect(printable(printable(s))).toBe(printable(s));
        const json = JSON.stringify({ f: s, value: [s] });
        expect(JSON.parse(printable(json))).toEqual(JSON.parse(json));
      }),
      { numRuns: 2000 },
    );
  });
});
