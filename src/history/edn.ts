/**
 * Jepsen EDN histories, read and written, so that Knossos, Elle and Porcupine users can bring
 * their histories to us and take ours to their tools.
 *
 * Reading: a vector or a list of op maps, or a bare stream of them (what `jepsen.store`
 * writes to history.edn), including `#jepsen.history.Op{...}` record literals. The reader
 * knows the EDN that histories use: keywords, strings, integers (beyond 2^53 they lose
 * precision), floats, ratios, nil, true/false, vectors, lists, sets, maps, characters,
 * tagged literals (`#inst "..."` becomes its string), `#_` discards, `;` comments, and commas
 * as whitespace. Op maps' keywords `:type :f :process :value :time :index :key :error` become
 * Op fields; keyword values (`:read`) become strings ("read"), `:process :nemesis` becomes
 * "nemesis", sets become arrays, maps become objects. A missing `:index` is the op's
 * position.
 */
import { MAX_DEPTH } from '../util/depth.js';
import { HistoryError } from './errors.js';
import type { Op } from './op.js';
import { checkReading, LOOK_EVERY, type ParseLimits } from './reading-budget.js';
import { toOp } from './validate.js';

/**
 * The most forms the reader holds open at once: a history's vector, an op's map and its
 * value's MAX_DEPTH levels, with room to spare (value-depth.ts then holds each op to
 * MAX_DEPTH, as every reader does).
 */
const MAX_READ_DEPTH = 2 * MAX_DEPTH;

export class Keyword {
  constructor(readonly name: string) {}
  toString(): string {
    return `:${this.name}`;
  }
}

export class EdnSymbol {
  constructor(readonly name: string) {}
  toString(): string {
    return this.name;
  }
}

export class EdnMap {
  constructor(
    readonly entries: [EdnValue, EdnValue][],
    /** The line of its opening brace, for error messages. */
    readonly line: number,
  ) {}
}

export class EdnSet {
  constructor(readonly items: EdnValue[]) {}
}

export class Tagged {
  constructor(
    readonly tag: string,
    readonly value: EdnValue,
  ) {}
}

/** Vectors and lists are both JS arrays: histories use them interchangeably. */
export type EdnValue = null | boolean | number | string | Keyword | EdnSymbol | EdnValue[] | EdnMap | EdnSet | Tagged;

// ---------------------------------------------------------------------------------------------
// Reading EDN

const CLOSERS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const NAMES: Record<string, string> = { ')': 'list', ']': 'vector', '}': 'map or set' };

/** Whitespace, commas and the characters that end a token. */
function isDelimiter(c: number): boolean {
  return (
    c <= 32 || // space, tab, newline, other control characters
    c === 44 || // ,
    c === 40 ||
    c === 41 || // ( )
    c === 91 ||
    c === 93 || // [ ]
    c === 123 ||
    c === 125 || // { }
    c === 34 || // "
    c === 59 // ;
  );
}

const DISCARD = Symbol('discard');
const END = Symbol('end');

class EdnReader {
  private i = 0;
  private line = 1;
  /** Forms open now, this one included. */
  private depth = 0;

  constructor(
    private readonly s: string,
    private readonly source: string,
  ) {}

  private fail(message: string, line = this.line): never {
    throw new HistoryError(`${this.source} line ${line}: ${message}`);
  }

  /** Where the reader is: the offset after the last form read. */
  get offset(): number {
    return this.i;
  }

  /** The line the next form starts on (after whitespace and comments). */
  nextLine(): number {
    this.skipSpace();
    return this.line;
  }

  private skipSpace(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 10) {
        this.line++;
        this.i++;
      } else if (c <= 32 || c === 44) {
        this.i++;
      } else if (c === 59) {
        while (this.i < s.length && s.charCodeAt(this.i) !== 10) this.i++;
      } else {
        return;
      }
    }
  }

  /** The next top-level form, or END at the end of input. */
  readTop(): EdnValue | typeof END {
    for (;;) {
      const v = this.read(undefined);
      if (v === DISCARD) continue;
      return v;
    }
  }

  /**
   * Each operation form of a history, handed to `each` as it is read (the forms are not all
   * held at once): the items of a text that is one vector or list, else each top-level form.
   */
  readHistoryItems(each: (v: EdnValue) => void): void {
    this.skipSpace();
    const ch = this.s[this.i];
    if (ch !== '[' && ch !== '(') {
      const forms: EdnValue[] = [];
      for (let v = this.readTop(); v !== END; v = this.readTop()) forms.push(v);
      const items = forms.length === 1 && Array.isArray(forms[0]) ? forms[0] : forms;
      for (const item of items) each(item);
      return;
    }
    const closer = CLOSERS[ch];
    const what = closer === ']' ? 'vector' : 'list';
    const openLine = this.line;
    this.i++;
    this.depth++;
    try {
      for (;;) {
        if (this.atEnd()) this.fail(`end of input inside the ${what} opened at line ${openLine}: expected '${closer}'`);
        const v = this.read(closer);
        if (v === END) break;
        if (v !== DISCARD) each(v);
      }
    } finally {
      this.depth--;
    }
    if (this.readTop() !== END) {
      this.fail(
        `a form follows the ${what} of operations opened at line ${openLine}: give one vector or list of operation maps, or a stream of them`,
      );
    }
  }

  /**
   * One form. `closer` is the delimiter that ends the enclosing collection: meeting it
   * returns END; meeting any other closer is an error.
   */
  private read(closer: string | undefined): EdnValue | typeof END | typeof DISCARD {
    // Bounded here, not by the stack: a value read deeper than a walk of it can go
    // (ednToJs, a model's canonical value) overflowed after the reader was done.
    if (++this.depth > MAX_READ_DEPTH) {
      this.fail(
        `collections nested more than ${MAX_READ_DEPTH} levels deep: not a history (its operations nest a few levels)`,
      );
    }
    try {
      return this.readForm(closer);
    } finally {
      this.depth--;
    }
  }

  private readForm(closer: string | undefined): EdnValue | typeof END | typeof DISCARD {
    this.skipSpace();
    const s = this.s;
    if (this.i >= s.length) return END;
    const ch = s[this.i];
    switch (ch) {
      case '(':
      case '[':
        return this.readSeq(CLOSERS[ch]);
      case '{':
        return this.readMap();
      case ')':
      case ']':
      case '}':
        if (ch === closer) {
          this.i++;
          return END;
        }
        return closer === undefined
          ? this.fail(`unexpected '${ch}': no ${NAMES[ch]} is open`)
          : this.fail(`unexpected '${ch}': expected '${closer}' to close the ${NAMES[closer]}`);
      case '"':
        return this.readString();
      case '#':
        return this.readDispatch();
      case '\\':
        return this.readChar();
      case '^': {
        // Metadata: read and drop it, keep the form it annotates.
        this.i++;
        this.readOne('metadata');
        return DISCARD;
      }
      case "'": {
        this.i++;
        return this.readOne('quoted form');
      }
      default:
        return this.readAtom();
    }
  }

  /** One form that must be there (after a tag, a quote, a discard). */
  private readOne(what: string): EdnValue {
    const line = this.line;
    for (;;) {
      const v = this.read(undefined);
      if (v === END) this.fail(`end of input: expected the ${what} begun at line ${line}`);
      if (v !== DISCARD) return v;
    }
  }

  private readSeq(closer: string): EdnValue[] {
    const openLine = this.line;
    this.i++;
    const items: EdnValue[] = [];
    for (;;) {
      if (this.atEnd())
        this.fail(
          `end of input inside the ${closer === ']' ? 'vector' : 'list'} opened at line ${openLine}: expected '${closer}'`,
        );
      const v = this.read(closer);
      if (v === END) return items;
      if (v !== DISCARD) items.push(v);
    }
  }

  private readItemsUntilBrace(openLine: number, what: string): EdnValue[] {
    const items: EdnValue[] = [];
    for (;;) {
      if (this.atEnd()) this.fail(`end of input inside the ${what} opened at line ${openLine}: expected '}'`);
      const v = this.read('}');
      if (v === END) return items;
      if (v !== DISCARD) items.push(v);
    }
  }

  private readMap(): EdnMap {
    const openLine = this.line;
    this.i++;
    const items = this.readItemsUntilBrace(openLine, 'map');
    if (items.length % 2 !== 0) {
      this.fail(`the map opened at line ${openLine} has a key without a value (odd number of forms)`, openLine);
    }
    const entries: [EdnValue, EdnValue][] = [];
    for (let k = 0; k < items.length; k += 2) entries.push([items[k], items[k + 1]]);
    return new EdnMap(entries, openLine);
  }

  private atEnd(): boolean {
    this.skipSpace();
    return this.i >= this.s.length;
  }

  private readString(): string {
    const s = this.s;
    const openLine = this.line;
    this.i++;
    let out = '';
    let start = this.i;
    for (;;) {
      if (this.i >= s.length)
        this.fail(`end of input inside the string begun at line ${openLine}: expected a closing '"'`);
      const c = s.charCodeAt(this.i);
      if (c === 34) {
        out += s.slice(start, this.i);
        this.i++;
        return out;
      }
      if (c === 10) this.line++;
      if (c === 92) {
        out += s.slice(start, this.i);
        const e = s[this.i + 1];
        this.i += 2;
        switch (e) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          case 'r':
            out += '\r';
            break;
          case 'b':
            out += '\b';
            break;
          case 'f':
            out += '\f';
            break;
          case "'":
            out += "'";
            break;
          case 'u': {
            const hex = s.slice(this.i, this.i + 4);
            if (!/^[0-9a-fA-F]{4}$/.test(hex))
              this.fail(`bad \\u escape in a string: expected 4 hex digits, got '${hex}'`);
            out += String.fromCharCode(Number.parseInt(hex, 16));
            this.i += 4;
            break;
          }
          default:
            this.fail(
              e === undefined
                ? `end of input inside the string begun at line ${openLine}: expected a closing '"'`
                : `unknown escape '\\${e}' in a string`,
            );
        }
        start = this.i;
        continue;
      }
      this.i++;
    }
  }

  private readChar(): string {
    const s = this.s;
    this.i++;
    const start = this.i;
    if (this.i >= s.length) this.fail('end of input after \\: expected a character');
    this.i++; // a character literal has at least one character, even a delimiter: \( \space
    while (this.i < s.length && !isDelimiter(s.charCodeAt(this.i))) this.i++;
    const token = s.slice(start, this.i);
    const named: Record<string, string> = {
      newline: '\n',
      space: ' ',
      tab: '\t',
      return: '\r',
      backspace: '\b',
      formfeed: '\f',
    };
    if (token.length === 1) return token;
    if (token in named) return named[token];
    if (/^u[0-9a-fA-F]{4}$/.test(token)) return String.fromCharCode(Number.parseInt(token.slice(1), 16));
    return this.fail(`unknown character literal '\\${token}'`);
  }

  private readDispatch(): EdnValue | typeof DISCARD {
    const s = this.s;
    const next = s[this.i + 1];
    if (next === '{') {
      const openLine = this.line;
      this.i += 2;
      return new EdnSet(this.readItemsUntilBrace(openLine, 'set'));
    }
    if (next === '_') {
      this.i += 2;
      this.readOne('form after #_');
      return DISCARD;
    }
    if (next === '#') {
      this.i += 2;
      const token = this.token();
      if (token === 'Inf') return Number.POSITIVE_INFINITY;
      if (token === '-Inf') return Number.NEGATIVE_INFINITY;
      if (token === 'NaN') return Number.NaN;
      return this.fail(`unknown symbolic value '##${token}': expected ##Inf, ##-Inf or ##NaN`);
    }
    if (next === '"') {
      this.i++;
      return this.readString(); // a regex: keep its source
    }
    // A tagged literal: #inst "...", #uuid "...", #jepsen.history.Op{...}
    this.i++;
    const tag = this.token();
    if (tag === '') this.fail(`'#' must be followed by a tag, '{', '_' or '#'`);
    return new Tagged(tag, this.readOne(`value of the tag #${tag}`));
  }

  private token(): string {
    const s = this.s;
    const start = this.i;
    while (this.i < s.length && !isDelimiter(s.charCodeAt(this.i))) this.i++;
    return s.slice(start, this.i);
  }

  private readAtom(): EdnValue {
    const token = this.token();
    if (token === '') this.fail(`unexpected character '${this.s[this.i]}'`);
    const c = token.charCodeAt(0);
    if (c === 58) {
      // :keyword, ::auto-resolved keyword
      const name = token.replace(/^::?/, '');
      if (name === '') this.fail(`'${token}' is not a keyword: expected a name after ':'`);
      return new Keyword(name);
    }
    const isDigit = (k: number) => k >= 48 && k <= 57;
    if (isDigit(c) || ((c === 43 || c === 45) && token.length > 1 && isDigit(token.charCodeAt(1)))) {
      return this.number(token);
    }
    if (token === 'nil') return null;
    if (token === 'true') return true;
    if (token === 'false') return false;
    return new EdnSymbol(token);
  }

  private number(token: string): number {
    let m = /^([+-]?)(\d+)N?$/.exec(token);
    if (m) return Number(m[1] + m[2]);
    m = /^([+-]?)0[xX]([0-9a-fA-F]+)N?$/.exec(token);
    if (m) return (m[1] === '-' ? -1 : 1) * Number.parseInt(m[2], 16);
    m = /^([+-]?\d+)\/(\d+)$/.exec(token);
    if (m) return Number(m[1]) / Number(m[2]);
    if (/^[+-]?\d+(\.\d*)?([eE][+-]?\d+)?M?$/.test(token)) return Number(token.replace(/M$/, ''));
    return this.fail(`'${token}' is not a number`);
  }
}

/** The reader's next top-level form. */
function readTopForm(reader: EdnReader, source: string): EdnValue | typeof END {
  try {
    return reader.readTop();
  } catch (err) {
    // Collections are read recursively; thousands of levels of nesting is not a history.
    if (err instanceof RangeError)
      throw new HistoryError(`${source} line ${reader.nextLine()}: collections nested too deeply to read`);
    throw err;
  }
}

/** Every top-level form of an EDN text. */
export function parseEdn(text: string, source = 'edn'): EdnValue[] {
  const reader = new EdnReader(text, source);
  const forms: EdnValue[] = [];
  for (let v = readTopForm(reader, source); v !== END; v = readTopForm(reader, source)) forms.push(v);
  return forms;
}

/** Parses exactly one EDN form (a value in a Jepsen log line, say). */
export function parseEdnValue(text: string, source = 'edn'): EdnValue {
  const forms = parseEdn(text, source);
  if (forms.length !== 1) {
    throw new HistoryError(`${source}: expected one EDN value, found ${forms.length === 0 ? 'none' : forms.length}`);
  }
  return forms[0];
}

/**
 * The first EDN form of a text and the text after it: a value followed by free text, as in
 * a Jepsen log line whose tabs were expanded to spaces (`:fail :read :timed-out  boom`).
 */
export function parseEdnPrefix(text: string, source = 'edn'): { value: EdnValue; rest: string } {
  const reader = new EdnReader(text, source);
  const v = readTopForm(reader, source);
  if (v === END) throw new HistoryError(`${source}: expected one EDN value, found none`);
  return { value: v, rest: text.slice(reader.offset) };
}

/** An EDN value as plain JSON-like data: keywords and symbols become their names. */
export function ednToJs(v: EdnValue): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(ednToJs);
  if (v instanceof Keyword || v instanceof EdnSymbol) return v.name;
  if (v instanceof EdnSet) return v.items.map(ednToJs);
  if (v instanceof Tagged) return ednToJs(v.value);
  const obj: Record<string, unknown> = {};
  for (const [k, val] of v.entries) {
    const name =
      typeof k === 'string' || typeof k === 'number'
        ? String(k)
        : k instanceof Keyword || k instanceof EdnSymbol
          ? k.name
          : printEdn(ednToJs(k));
    obj[name] = ednToJs(val);
  }
  return obj;
}

// ---------------------------------------------------------------------------------------------
// Histories

const OP_FIELDS = new Set(['type', 'f', 'process', 'value', 'time', 'index', 'key', 'error']);

/**
 * Reads a Jepsen EDN history: a vector or list of op maps, or a bare stream of them. Each
 * map becomes an op as it is read, within `limits` (reading-budget.ts).
 */
export function parseEdnHistory(text: string, source = 'history.edn', limits: ParseLimits = {}): Op[] {
  const reader = new EdnReader(text, source);
  const ops: Op[] = [];
  const add = (item: EdnValue) => {
    const map = item instanceof Tagged && item.value instanceof EdnMap ? item.value : item;
    if (!(map instanceof EdnMap)) {
      throw new HistoryError(
        `${source}: expected operation maps like {:type :invoke, :f :read, :process 0}, got ${describeForm(map)}`,
      );
    }
    if (ops.length % LOOK_EVERY === 0) checkReading(limits, text.length, ops.length);
    ops.push(opFromMap(map, `${source} line ${map.line}`, ops.length));
  };
  try {
    reader.readHistoryItems(add);
  } catch (err) {
    if (err instanceof RangeError) {
      throw new HistoryError(`${source} line ${reader.nextLine()}: collections nested too deeply to read`);
    }
    throw err;
  }
  return ops;
}

function opFromMap(map: EdnMap, where: string, position: number): Op {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of map.entries) {
    if (!(k instanceof Keyword) || !OP_FIELDS.has(k.name)) continue;
    if (k.name === 'process' && v instanceof Keyword) {
      // :nemesis is the only keyword process in Jepsen; others fail validation, by name.
      fields.process = v.name === 'nemesis' ? 'nemesis' : `:${v.name}`;
    } else {
      fields[k.name] = ednToJs(v);
    }
  }
  return toOp(fields, where, position);
}

function describeForm(v: EdnValue): string {
  if (v === null) return 'nil';
  if (Array.isArray(v)) return 'a nested vector or list';
  if (v instanceof EdnSet) return 'a set';
  const text = typeof v === 'object' ? String(v) : JSON.stringify(v);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

// ---------------------------------------------------------------------------------------------
// Writing EDN

const KEYWORD_NAME = /^[A-Za-z*+!_?<>=][\w*+!?<>=.-]*$|^-([A-Za-z*+!_?<>=.-][\w*+!?<>=.-]*)?$/;

/** A JSON-like value as EDN. Object keys that make valid keywords become keywords. */
export function printEdn(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  switch (typeof v) {
    case 'boolean':
      return String(v);
    case 'number':
      if (Number.isNaN(v)) return '##NaN';
      if (!Number.isFinite(v)) return v > 0 ? '##Inf' : '##-Inf';
      return String(v);
    case 'bigint':
      return `${v}N`;
    case 'string':
      return printString(v);
    case 'object': {
      if (Array.isArray(v)) return `[${v.map(printEdn).join(' ')}]`;
      if (v instanceof Keyword) return `:${v.name}`;
      const parts = Object.entries(v as Record<string, unknown>).map(
        ([k, val]) => `${KEYWORD_NAME.test(k) ? `:${k}` : printString(k)} ${printEdn(val)}`,
      );
      return `{${parts.join(', ')}}`;
    }
    default:
      return printString(String(v));
  }
}

function printString(s: string): string {
  // JSON's escapes are a subset of what the Clojure reader accepts.
  return JSON.stringify(s);
}
