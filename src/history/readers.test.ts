/**
 * Reading histories: our JSONL, Jepsen EDN (vector, list, bare stream, records), Jepsen's
 * log lines; writing EDN; and one clear error per malformed input.
 */
import { describe, expect, it } from 'vitest';
import { toEdn, toJsonl } from '../../test/unit/history-writers.js';
import { parseEdn, parseEdnHistory } from './edn.js';
import { HistoryError } from './errors.js';
import { parseJepsenLog } from './jepsen-log.js';
import { parseJsonl } from './jsonl.js';
import type { Op } from './op.js';
import { guessFormat } from './read.js';
import { LOOK_EVERY, ReadingOverBudget, readingBytes } from './reading-budget.js';

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(HistoryError);
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a HistoryError');
}

const twoOps: Op[] = [
  { index: 0, type: 'invoke', f: 'read', process: 0, time: 10 },
  { index: 1, type: 'ok', f: 'read', process: 0, time: 20, value: 3 },
];

describe('jsonl', () => {
  it('reads one op per line, blank lines allowed, indices assigned when missing', () => {
    const text =
      '{"type":"invoke","f":"write","process":1,"value":[1,2],"key":"k"}\n\n{"type":"ok","f":"write","process":1,"value":[1,2],"key":"k","time":5}\n';
    expect(parseJsonl(text)).toEqual([
      { index: 0, type: 'invoke', f: 'write', process: 1, time: 0, key: 'k', value: [1, 2] },
      { index: 1, type: 'ok', f: 'write', process: 1, time: 5, key: 'k', value: [1, 2] },
    ]);
  });

  it('round-trips toJsonl', () => {
    expect(parseJsonl(toJsonl(twoOps))).toEqual(twoOps);
  });

  it('an equal set read soon after is the same array; any other difference is its own', () => {
    const line = (index: number, f: string, value: unknown) =>
      JSON.stringify({ index, type: 'ok', f, process: 1, time: index, key: 's', value });
    const ops = parseJsonl(
      [line(0, 'write', [1, 2]), line(1, 'read', [1, 2]), line(2, 'read', [1, '2']), line(3, 'read', [1, 2, 3])]
        .map((l) => `${l}\n`)
        .join(''),
    );
    expect(ops.map((op) => op.value)).toEqual([
      [1, 2],
      [1, 2],
      [1, '2'],
      [1, 2, 3],
    ]);
    expect(ops[1].value).toBe(ops[0].value);
    expect(ops[2].value).not.toBe(ops[0].value);
    const nested = parseJsonl(`${line(0, 'write', [[1]])}\n${line(1, 'read', [[1]])}\n`);
    expect(nested[1].value).not.toBe(nested[0].value);
  });

  it('names a truncated last line', () => {
    const text = `${toJsonl(twoOps)}{"index":2,"type":"inv`;
    expect(errorOf(() => parseJsonl(text, 'h.jsonl'))).toBe(
      'h.jsonl line 3 (the last) is truncated: expected a complete JSON object (the run was probably killed while writing it; remove the line to check the rest)',
    );
  });

  it('names a bad line in the middle, and what was expected', () => {
    expect(errorOf(() => parseJsonl('{"type":"invoke","f":"read","process":0}\n{oops}\n{}\n'))).toMatch(
      /^history\.jsonl line 2: expected one operation as a JSON object: /,
    );
    expect(errorOf(() => parseJsonl('[1,2]\n'))).toBe(
      'history.jsonl line 1: expected one operation as a JSON object, got an array',
    );
  });

  it('rejects unknown types, missing fields and bad processes, by line', () => {
    expect(errorOf(() => parseJsonl('{"type":"done","f":"read","process":0}\n'))).toBe(
      "history.jsonl line 1: unknown type 'done': expected one of invoke, ok, fail, info",
    );
    expect(errorOf(() => parseJsonl('{"f":"read","process":0}\n'))).toBe(
      'history.jsonl line 1: the operation has no type: expected one of invoke, ok, fail, info',
    );
    expect(errorOf(() => parseJsonl('{"type":"ok","process":0}\n'))).toBe(
      'history.jsonl line 1: the operation has no f (what it does, e.g. read or acquire)',
    );
    expect(errorOf(() => parseJsonl('{"type":"ok","f":"read","process":"3"}\n'))).toBe(
      `history.jsonl line 1: process must be an integer or "nemesis", got '3'`,
    );
  });
});

describe('edn', () => {
  const expected: Op[] = [
    { index: 0, type: 'invoke', f: 'read', process: 0, time: 0, value: null },
    { index: 1, type: 'ok', f: 'read', process: 0, time: 0, value: 3 },
  ];

  it('a vector, a list, or a bare stream of op maps', () => {
    const maps = '{:type :invoke, :f :read, :process 0, :value nil} {:type :ok, :f :read, :process 0, :value 3}';
    expect(parseEdnHistory(`[${maps}]`)).toEqual(expected);
    expect(parseEdnHistory(`(${maps})`)).toEqual(expected);
    expect(parseEdnHistory(maps.replace('} {', '}\n{'))).toEqual(expected);
    expect(parseEdnHistory('')).toEqual([]);
    expect(parseEdnHistory('[]')).toEqual([]);
  });

  it('comments, commas, discards, nemesis, records, and every value kind', () => {
    const text = `; a Jepsen history
[{:index 7 :time 1500 :type :invoke :process 2 :f :cas :value [1 2]} ; trailing comment
 #_{:type :ok :f :ignored :process 9}
 #jepsen.history.Op{:index 8, :time 1600, :type :info, :process :nemesis, :f :start-partition,
                    :value {:n1 #{"n2" "n3"}, "odd key" [1.5 -2 3/4 nil true false \\a]}}
 {:index 9,,, :time 1700 :type :ok :process 2 :f :cas :value (1 2) :error :timeout :extra 1 :key :k1}]`;
    expect(parseEdnHistory(text)).toEqual([
      { index: 7, type: 'invoke', f: 'cas', process: 2, time: 1500, value: [1, 2] },
      {
        index: 8,
        type: 'info',
        f: 'start-partition',
        process: 'nemesis',
        time: 1600,
        value: { n1: ['n2', 'n3'], 'odd key': [1.5, -2, 0.75, null, true, false, 'a'] },
      },
      { index: 9, type: 'ok', f: 'cas', process: 2, time: 1700, key: 'k1', value: [1, 2], error: 'timeout' },
    ]);
  });

  it('strings with escapes, tagged literals, symbolic values', () => {
    expect(
      parseEdn(String.raw`"a\"b\\c\n\u0041" #inst "2020-01-01T00:00:00Z" ##Inf -0.5e3 12N 1.5M foo/bar`),
    ).toMatchObject([
      'a"b\\c\nA',
      { tag: 'inst', value: '2020-01-01T00:00:00Z' },
      Number.POSITIVE_INFINITY,
      -500,
      12,
      1.5,
      { name: 'foo/bar' },
    ]);
  });

  it('malformed input: one clear error each, with its line', () => {
    expect(errorOf(() => parseEdnHistory('[{:type :invoke :f :read :process 0}\n {:type :ok'))).toBe(
      "history.edn line 2: end of input inside the map opened at line 2: expected '}'",
    );
    expect(errorOf(() => parseEdnHistory('[{:type :invoke :f :read :process 0}'))).toBe(
      "history.edn line 1: end of input inside the vector opened at line 1: expected ']'",
    );
    expect(errorOf(() => parseEdnHistory('[{:type :invoke :f :read :process 0 :value "abc}]'))).toBe(
      `history.edn line 1: end of input inside the string begun at line 1: expected a closing '"'`,
    );
    expect(errorOf(() => parseEdnHistory('[{:type :invoke :f :read :process}]'))).toBe(
      'history.edn line 1: the map opened at line 1 has a key without a value (odd number of forms)',
    );
    expect(errorOf(() => parseEdnHistory('[{:type :invoke :f :read :process 0)]'))).toBe(
      "history.edn line 1: unexpected ')': expected '}' to close the map or set",
    );
    expect(errorOf(() => parseEdnHistory('\n\n{:type :done :f :read :process 0}'))).toBe(
      "history.edn line 3: unknown type 'done': expected one of invoke, ok, fail, info",
    );
    expect(errorOf(() => parseEdnHistory('{:type :ok :f :read :process :client}'))).toBe(
      `history.edn line 1: process must be an integer or "nemesis", got ':client'`,
    );
    expect(errorOf(() => parseEdnHistory('[1 2 3]'))).toBe(
      'history.edn: expected operation maps like {:type :invoke, :f :read, :process 0}, got 1',
    );
  });

  it('toEdn writes what Knossos reads, and reads back the same', () => {
    const history: Op[] = [
      { index: 0, type: 'invoke', f: 'write', process: 0, time: 5, key: 'k', value: [1, { a: 'x"y' }] },
      { index: 1, type: 'info', f: 'start', process: 'nemesis', time: 6, value: null },
      {
        index: 2,
        type: 'info',
        f: 'write',
        process: 0,
        time: 7,
        key: 'k',
        value: [1, { a: 'x"y' }],
        error: 'timed out',
      },
      { index: 3, type: 'invoke', f: 'read', process: 1, time: 8 },
    ];
    const edn = toEdn(history);
    expect(edn).toBe(
      [
        '[{:index 0, :time 5, :type :invoke, :process 0, :f :write, :key "k", :value [1 {:a "x\\"y"}]}',
        ' {:index 1, :time 6, :type :info, :process :nemesis, :f :start, :value nil}',
        ' {:index 2, :time 7, :type :info, :process 0, :f :write, :key "k", :value [1 {:a "x\\"y"}], :error "timed out"}',
        ' {:index 3, :time 8, :type :invoke, :process 1, :f :read, :value nil}]',
        '',
      ].join('\n'),
    );
    expect(parseEdnHistory(edn)).toEqual(history.map((op) => ({ ...op, value: op.value ?? null })));
  });
});

describe('jepsen-log', () => {
  it('bare lines, old and new log prefixes, nemesis lines, errors; other lines skipped', () => {
    const text = [
      'INFO  jepsen.core - Running test',
      '0\t:invoke\t:read\tnil',
      'INFO  jepsen.util - 0\t:ok\t:read\t[1 2]',
      '2020-04-20 10:03:41,583{GMT}\tINFO\t[jepsen worker 3] jepsen.util: 3\t:invoke\t:write\t{:a 1}',
      '2020-04-20 10:03:41,600{GMT}\tINFO\t[jepsen worker 3] jepsen.util: 3\t:info\t:write\t{:a 1}\tindeterminate: timeout',
      'INFO  jepsen.util - :nemesis\t:info\t:start\t["n1" "n2"]',
      'WARN  jepsen.core - something went wrong',
      '\tat clojure.core$fn.invoke(core.clj:1)',
      '',
    ].join('\n');
    expect(parseJepsenLog(text)).toEqual([
      { index: 0, type: 'invoke', f: 'read', process: 0, time: 0, value: null },
      { index: 1, type: 'ok', f: 'read', process: 0, time: 0, value: [1, 2] },
      { index: 2, type: 'invoke', f: 'write', process: 3, time: 0, value: { a: 1 } },
      { index: 3, type: 'info', f: 'write', process: 3, time: 0, value: { a: 1 }, error: 'indeterminate: timeout' },
      { index: 4, type: 'info', f: 'start', process: 'nemesis', time: 0, value: ['n1', 'n2'] },
    ]);
  });

  it('tabs expanded to spaces: the same operations as with tabs', () => {
    const tabbed = [
      'INFO  jepsen.util - 1\t:invoke\t:write\t3',
      'INFO  jepsen.util - 1\t:ok\t:write\t3',
      '2020-04-20 10:03:41,583{GMT}\tINFO\t[jepsen worker 3] jepsen.util: 2\t:invoke\t:cas\t[3 4]',
      '2020-04-20 10:03:41,600{GMT}\tINFO\t[jepsen worker 3] jepsen.util: 2\t:info\t:cas\t[3 4]\tindeterminate: timeout',
      '0\t:invoke\t:read\tnil',
      '0\t:fail\t:read\t:timed-out',
      'INFO  jepsen.util - :nemesis\t:info\t:start\t{"n1" ["n2" "n3"]}',
      'INFO  jepsen.core - Running test',
      '\tat clojure.core$fn.invoke(core.clj:1)',
    ].join('\n');
    // What `expand` makes of it: each tab up to the next multiple of 8 columns.
    const spaced = tabbed
      .split('\n')
      .map((line) =>
        line
          .split('\t')
          .reduce((out, field, i) => (i === 0 ? field : out + ' '.repeat(8 - (out.length % 8)) + field), ''),
      )
      .join('\n');
    expect(spaced).not.toContain('\t');
    expect(spaced.split('\n')[0]).toBe('INFO  jepsen.util - 1   :invoke :write  3');
    const ops = parseJepsenLog(tabbed);
    expect(ops).toHaveLength(7);
    expect(ops[3]).toMatchObject({ type: 'info', f: 'cas', value: [3, 4], error: 'indeterminate: timeout' });
    expect(parseJepsenLog(spaced)).toEqual(ops);
    expect(parseJepsenLog('1 :invoke :write 3\n1  :ok  :write  3')).toEqual(
      parseJepsenLog('1\t:invoke\t:write\t3\n1\t:ok\t:write\t3'),
    );
    // Any whitespace around the prefix's ' - ' and after its ':', and at the end of a line.
    expect(
      parseJepsenLog('INFO jepsen.util  -  1 :invoke :write 3  \r\nINFO [w 1] jepsen.util:\t1   :ok   :write 3\r\n'),
    ).toEqual(parseJepsenLog('1\t:invoke\t:write\t3\n1\t:ok\t:write\t3'));
    expect(guessFormat('h', spaced)).toBe('jepsen-log');
    expect(errorOf(() => parseJepsenLog('0 :invoke :read nil\n0   :ok   :read   [1 2'))).toBe(
      "jepsen.log line 2: cannot read the value '[1 2' as EDN: end of input inside the vector opened at line 1: expected ']'",
    );
  });

  it('malformed op lines: one clear error each, with its line', () => {
    expect(errorOf(() => parseJepsenLog('0\t:invoke\t:read\tnil\n0\t:ok'))).toBe(
      "jepsen.log line 2: truncated op line: expected 'process<TAB>:type<TAB>:f<TAB>value', got only 2 fields",
    );
    expect(errorOf(() => parseJepsenLog('0\t:invoke\t:read\tnil\n0\t:ok\t:read\t[1 2'))).toBe(
      "jepsen.log line 2: cannot read the value '[1 2' as EDN: end of input inside the vector opened at line 1: expected ']'",
    );
    expect(errorOf(() => parseJepsenLog('0\t:done\t:read\tnil'))).toBe(
      "jepsen.log line 1: unknown type ':done': expected :invoke, :ok, :fail or :info",
    );
    expect(errorOf(() => parseJepsenLog('INFO  jepsen.util - x\t:ok\t:read\t1'))).toBe(
      "jepsen.log line 1: expected an op line 'process<TAB>:type<TAB>:f<TAB>value', but 'x' is not a process (an integer or :nemesis)",
    );
    expect(errorOf(() => parseJepsenLog('INFO  jepsen.core - nothing to see'))).toMatch(
      /^jepsen\.log: no operation lines found/,
    );
  });
});

describe('guessFormat', () => {
  it('from the name, else the content', () => {
    expect(guessFormat('a/history.jsonl', '')).toBe('jsonl');
    expect(guessFormat('history.edn', '')).toBe('edn');
    expect(guessFormat('jepsen.log', '')).toBe('jepsen-log');
    expect(guessFormat('h', '{"type":"invoke"}\n')).toBe('jsonl');
    expect(guessFormat('h', '  {:type :invoke}')).toBe('edn');
    expect(guessFormat('h', '; comment\n[{:type :invoke}]')).toBe('edn');
    expect(guessFormat('h', 'INFO x - 0\t:invoke\t:read\tnil\n')).toBe('jepsen-log');
    expect(errorOf(() => guessFormat('h.txt', 'hello'))).toBe(
      "h.txt: cannot tell the history's format from its name or content: give --format jsonl|edn|jepsen-log",
    );
  });
});

describe('reading within a memory budget', () => {
  // 40,000 operations: 80,000 lines, each op's estimate 160 bytes beside its text.
  const many: Op[] = Array.from({ length: 40_000 }, (_, i) => ({
    index: i,
    type: i % 2 === 0 ? 'invoke' : 'ok',
    f: 'write',
    process: (i >> 1) % 5,
    time: i,
    value: i >> 1,
  }));

  it.each([
    ['EDN', toEdn(many), (text: string, budgetBytes: number) => parseEdnHistory(text, 'h.edn', { budgetBytes })],
    [
      'JSON Lines',
      toJsonl(many),
      (text: string, budgetBytes: number) => parseJsonl(text, 'h.jsonl', 1, [], { budgetBytes }),
    ],
  ])(
    '%s: the parser stops once its text and operations so far are past the budget, not after the whole file',
    (_, text, parse) => {
      const budget = text.length + 1000 * 160;
      expect(readingBytes(text.length, many.length)).toBeGreaterThan(2 * budget);
      let stopped: unknown;
      try {
        parse(text, budget);
      } catch (err) {
        stopped = err;
      }
      expect(stopped).toBeInstanceOf(ReadingOverBudget);
      // Looked at every LOOK_EVERY operations: past the budget by at most that many.
      expect((stopped as ReadingOverBudget).bytes).toBeLessThanOrEqual(budget + LOOK_EVERY * 160);
      expect(parse(text, readingBytes(text.length, many.length))).toHaveLength(many.length);
    },
  );
});
