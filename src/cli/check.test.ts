/**
 * `lockchaos check` as a user runs it: files in, verdict lines and exit codes out.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PARALLEL_NODE_FLAGS } from '../../checkers/linearizable/parallel.js';
import { toEdn, toJsonl } from '../../test/unit/history-writers.js';
import { simulateHistory } from '../../test/unit/linearizable-support.js';
import type { Op, OpType, Process } from '../history/op.js';
import { version } from '../version.js';
import { checkCommand, checkNodeFlags } from './check.js';

const dir = mkdtempSync(join(tmpdir(), 'lockchaos-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function h(...rows: [Process, OpType, string, unknown?][]): Op[] {
  return rows.map(([process, type, f, value], index) => ({
    index,
    type,
    f,
    process,
    time: index,
    ...(value === undefined ? {} : { value }),
  }));
}

const validMutex = h(
  [0, 'invoke', 'acquire'],
  [0, 'ok', 'acquire'],
  [0, 'invoke', 'release'],
  [0, 'ok', 'release'],
  [1, 'invoke', 'acquire'],
  [1, 'ok', 'acquire'],
);
const invalidMutex = h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire'], [1, 'invoke', 'acquire'], [1, 'ok', 'acquire']);

let out: string[];
let err: string[];
beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
});
afterEach(() => vi.restoreAllMocks());

const lines = (chunks: string[]) => chunks.join('\n').split('\n');

describe('lockchaos check', () => {
  it('valid: exit 0, one line with the verdict, model, time and memory', async () => {
    const path = file('valid.jsonl', toJsonl(validMutex));
    expect(await checkCommand([path])).toBe(0);
    expect(lines(out)).toHaveLength(1);
    expect(out[0]).toMatch(
      new RegExp(
        `^valid +${path}: linearizable: 3 operations in 1 part \\([\\d.]+ ms\\) \\[mutex \\(guessed: operations acquire/release\\), 3 operations, 1 part, [\\d.]+ ms, memory \\d+ KiB\\]$`,
      ),
    );
    expect(err).toEqual([]);
  });

  it('invalid: exit 1 and the counterexample in words', async () => {
    const path = file('invalid.edn', toEdn(invalidMutex));
    expect(await checkCommand([path, '--model', 'mutex'])).toBe(1);
    const text = out.join('\n');
    expect(text).toMatch(
      /^invalid +.*not linearizable: op 2 \(process 1: acquire, completed at op 3\) cannot take effect: acquire by process 1, but the lock is held by process 0/,
    );
    expect(text).toContain('  Every order that gets as far as op 2 ends in this configuration:');
    expect(text).toContain('     the lock is held by process 0;');
  });

  it('unknown: exit 2 when the time limit runs out', async () => {
    const path = file('hard.jsonl', toJsonl(simulateHistory('register', 3, 50, 20_000, false)));
    expect(await checkCommand([path, '--time-limit', '0.001'])).toBe(2);
    // Reading counts against the limit too: it may run out there, or in the search.
    expect(out[0]).toMatch(
      /^unknown +.*unknown: time limit of 0\.0(01)? s reached (in the history \(\d+ of \d+ operations linearized\)|reading the history; give a larger --time-limit$)/,
    );
  });

  it('--json: one stamped object, the verdict and totals, and per file its verdict, ms and details', async () => {
    const a = file('a.jsonl', toJsonl(validMutex));
    const b = file('b.jsonl', toJsonl(invalidMutex));
    expect(await checkCommand([a, b, '--json'])).toBe(1);
    expect(out).toHaveLength(1);
    const envelope = JSON.parse(out[0] as string);
    expect(envelope).toMatchObject({
      lockchaos: version,
      schema: 1,
      verdict: 'invalid',
      exitCode: 1,
      totals: { files: 2, valid: 1, invalid: 1, unknown: 0, errors: 0 },
    });
    const [first, second] = envelope.files;
    expect(first).toMatchObject({ file: a, verdict: 'valid', valid: true, model: 'mutex', format: 'jsonl' });
    expect(typeof first.ms).toBe('number');
    expect(second).toMatchObject({
      file: b,
      verdict: 'invalid',
      valid: false,
      details: { counterexample: { op: { index: 2 } } },
    });
  });

  it('several files: one line each, an error too (on standard output, with the rest), plus totals; an error in any file wins', async () => {
    const a = file('a2.jsonl', toJsonl(validMutex));
    const b = file('b2.jsonl', toJsonl(invalidMutex));
    const c = file('c2.jsonl', `${toJsonl(validMutex)}{"type":"inv`);
    expect(await checkCommand([a, b, c])).toBe(3);
    expect(out).toHaveLength(4);
    expect(out[0]).toMatch(/^valid /);
    expect(out[1]).toMatch(/^invalid /);
    expect(out[2]).toBe(
      `error    ${c} line 7 (the last) is truncated: expected a complete JSON object (the run was probably killed while writing it; remove the line to check the rest)`,
    );
    expect(out[3]).toMatch(
      /^3 files: 1 valid, 1 invalid, 0 unknown, 1 error \(\d+ ms, peak memory \d+ KiB per file\)$/,
    );
    expect(err).toEqual([]);
  });

  it('operations no model knows: an error naming them and the models, not a guess that cannot fit', async () => {
    const txn = file('txn.jsonl', toJsonl(h([0, 'invoke', 'txn', [['r', 1, null]]], [0, 'ok', 'txn', [['r', 1, 3]]])));
    expect(await checkCommand([txn])).toBe(3);
    expect(err).toEqual([
      `lockchaos check: ${txn}: no model knows the operations txn (mutex: acquire/release; mutex-anon: acquire/release; register: read/write; cas-register: read/write/cas; fenced-register: read/write; kv: get/put/append): check a history of one of these`,
    ]);
    err.length = 0;
    // A model named that has none of the history's operations: --only cannot help.
    expect(await checkCommand([txn, '--model', 'register'])).toBe(3);
    expect(err).toEqual([
      `lockchaos check: ${txn}: op 0: model register has no operation 'txn' (it knows read, write); the history has none of the model's operations (read, write): give another --model`,
    ]);
  });

  it('malformed histories: exit 3 and one line each', async () => {
    const cases: [string, string, string][] = [
      ['unknown-type.jsonl', '{"type":"done","f":"read","process":0}\n', "line 1: unknown type 'done'"],
      ['orphan.jsonl', toJsonl(h([0, 'ok', 'read', 1])), 'op 0: ok read on process 0 has no outstanding invocation'],
      [
        'twice.jsonl',
        toJsonl(h([0, 'invoke', 'read'], [0, 'invoke', 'read'])),
        'op 1: process 0 invokes read while its op 0 (read) is still outstanding',
      ],
      [
        'after-info.jsonl',
        toJsonl(h([0, 'invoke', 'read'], [0, 'info', 'read'], [0, 'invoke', 'read'])),
        'op 2: process 0 invokes read after its op 1 (read) ended as info',
      ],
      [
        'truncated.edn',
        '[{:type :invoke, :f :read, :process 0}\n {:type :ok',
        "line 2: end of input inside the map opened at line 2: expected '}'",
      ],
      ['bad.log', '0\t:invoke\t:read\tnil\n0\t:ok\t:read\t[1', "line 2: cannot read the value '[1' as EDN"],
      ['wrong-model.jsonl', toJsonl(validMutex), "op 0: model register has no operation 'acquire'"],
      [
        'negative-validity.jsonl',
        toJsonl(h([0, 'invoke', 'acquire'], [0, 'ok', 'acquire', { validityMs: -5, token: 3 }])),
        "line 2: the acquire's grant is one no lock service gives: validityMs is -5, a negative number of ms (a validity is 0 or more); correct the value or remove the operation",
      ],
      [
        'negative-token.edn',
        '[{:type :invoke, :f :acquire, :process 0} {:type :ok, :f :acquire, :process 0, :value {"validityMs" 990, "token" -5}}]',
        "the acquire's grant is one no lock service gives: token is -5, not an integer from 0 to 2^53-1",
      ],
    ];
    for (const [name, text, message] of cases) {
      err = [];
      const args = name === 'wrong-model.jsonl' ? ['--model', 'register'] : [];
      expect(await checkCommand([file(name, text), ...args])).toBe(3);
      expect(err).toHaveLength(1);
      expect(err[0]).not.toContain('\n');
      expect(err[0]).toContain(message);
    }
    expect(out).toEqual([]);
  });

  it('deeply nested values: exit 3 and one line, the rule report holds a run to, in each format', async () => {
    // A read that returns a value nested 65 levels or 100,000 (past any stack).
    const deepJson = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
    const write = toJsonl(h([0, 'invoke', 'write', 1], [0, 'ok', 'write', 1], [1, 'invoke', 'read']));
    const edn = (d: number) =>
      `[{:type :invoke, :f :write, :process 0, :value 1} {:type :ok, :f :write, :process 0, :value 1} {:type :invoke, :f :read, :process 1} {:type :ok, :f :read, :process 1, :value ${deepJson(d)}}]`;
    const cases: [string, string, RegExp][] = [
      [
        'deep.jsonl',
        `${write}{"index":3,"type":"ok","f":"read","process":1,"time":3,"value":${deepJson(100_000)}}\n`,
        /: op #3 nests more than 64 levels deep/,
      ],
      [
        'deep.json',
        `${write}{"index":3,"type":"ok","f":"read","process":1,"time":3,"value":${deepJson(65)}}\n`,
        /: op #3 nests more than 64 levels deep/,
      ],
      ['deep.edn', edn(100), /: op #3 nests more than 64 levels deep: not a history of a lock or a store/],
      ['deeper.edn', edn(100_000), /line 1: collections nested more than 128 levels deep: not a history/],
    ];
    for (const [name, text, refusal] of cases) {
      err = [];
      expect(await checkCommand([file(name, text), '--model', 'register']), name).toBe(3);
      expect(err, name).toHaveLength(1);
      expect(err[0]).toMatch(refusal);
    }
    expect(out).toEqual([]);
  });

  it('a hostile history cannot reach the terminal: escapes in f, key, process and values are shown escaped in every line', async () => {
    const ESC = '\x1b';
    // Cursor moves, a colour, a screen clear, a title set ended by BEL, a carriage return,
    // a C1 CSI, DEL, a bidi override: each in a field check may print.
    const key = `k${ESC}]0;pwned\x07`;
    const a = `x${ESC}[2J\rok`;
    const b = 'y\x9b31m\x7f\u202e';
    // Writes a, then b, then reads a: not linearizable, and the words name both values.
    const register = [
      { index: 0, type: 'invoke', f: 'write', process: 0, time: 0, key, value: a },
      { index: 1, type: 'ok', f: 'write', process: 0, time: 1, key, value: a },
      { index: 2, type: 'invoke', f: 'write', process: 0, time: 2, key, value: b },
      { index: 3, type: 'ok', f: 'write', process: 0, time: 3, key, value: b },
      { index: 4, type: 'invoke', f: 'read', process: 1, time: 4, key },
      { index: 5, type: 'ok', f: 'read', process: 1, time: 5, key, value: a },
    ];
    const invalid = file('hostile-register.jsonl', `${register.map((op) => JSON.stringify(op)).join('\n')}\n`);
    // A read of a value no one wrote: the words show it.
    const unwritten = file(
      'hostile-read.jsonl',
      `${[
        { type: 'invoke', f: 'read', process: 1, key },
        { type: 'ok', f: 'read', process: 1, key, value: b },
      ]
        .map((op) => JSON.stringify(op))
        .join('\n')}\n`,
    );
    const badF = file(
      'hostile-f.jsonl',
      `${JSON.stringify({ type: 'invoke', f: `acq${ESC}[1A${ESC}[2Kuire`, process: 0 })}\n`,
    );
    const badProcess = file(
      'hostile-process.jsonl',
      `${JSON.stringify({ type: 'invoke', f: 'read', process: `p${ESC}[31m\r` })}\n`,
    );
    const badMutexF = file(
      'hostile-mutex.jsonl',
      `${JSON.stringify({ type: 'invoke', f: `x\n${ESC}c`, process: 0 })}\n`,
    );
    const runs: [string[], number][] = [
      [[invalid, '--model', 'register'], 1],
      [[invalid, '--model', 'register', '--json'], 1],
      [[unwritten, '--model', 'register'], 1],
      [[badF], 3],
      [[badProcess], 3],
      [[badMutexF, '--model', 'mutex'], 3],
      [[invalid, badF, badProcess, '--model', 'register'], 3],
    ];
    const printedLines: string[] = [];
    for (const [args, code] of runs) {
      out = [];
      err = [];
      expect(await checkCommand(args)).toBe(code);
      printedLines.push(...lines(out), ...lines(err));
      if (args.includes('--json')) {
        // Still JSON, of the history's own values.
        const parsed = JSON.parse(out[0]);
        expect(parsed.files[0].details.counterexample.key).toBe(key);
      }
    }
    const joined = printedLines.join('\n');
    expect(joined).toContain('\\u001b]0;pwned\\u0007');
    expect(joined).toContain('\\u001b[2J\\rok');
    expect(joined).toContain('y\\u009b31m\\u007f\\u202e');
    expect(joined).toContain('acq\\u001b[1A\\u001b[2Kuire');
    expect(joined).toContain('p\\u001b[31m\\r');
    expect(joined).toContain('x\\n\\u001bc');
    for (const l of printedLines) {
      for (const ch of l) {
        const c = ch.codePointAt(0) ?? 0;
        expect(c >= 0x20 && (c < 0x7f || c > 0x9f), `${JSON.stringify(l)} holds U+${c.toString(16)}`).toBe(true);
      }
      expect(l).not.toMatch(/[\u2028\u2029\u202a-\u202e\u2066-\u2069]/);
    }
  });

  it('bad options: exit 3 and one line', async () => {
    const cases: [string[], string][] = [
      [[], 'lockchaos check: give one or more history files to check (see lockchaos check --help)'],
      [
        ['x', '--model', 'queue'],
        "lockchaos check: unknown model 'queue': choose one of mutex, mutex-anon, register, cas-register, fenced-register, kv",
      ],
      [['x', '--format', 'csv'], "lockchaos check: unknown format 'csv': choose one of jsonl, edn, jepsen-log"],
      [['x', '--time-limit', 'soon'], "lockchaos check: --time-limit must be a positive number of seconds, got 'soon'"],
      [['x', '--memory-limit=-5'], "lockchaos check: --memory-limit must be a positive number of MiB, got '-5'"],
      [['x', '--threads', '0'], "lockchaos check: --threads must be a whole number, 1 or more, got '0'"],
      [['x', '--threads', '1.5'], "lockchaos check: --threads must be a whole number, 1 or more, got '1.5'"],
      [['x', '--threads', 'many'], "lockchaos check: --threads must be a whole number, 1 or more, got 'many'"],
      [['x', '--frobnicate'], "lockchaos check: unknown option '--frobnicate' (see lockchaos check --help)"],
      [
        ['x', '--modle', 'kv'],
        "lockchaos check: unknown option '--modle': did you mean --model? (see lockchaos check --help)",
      ],
      [
        [join(dir, 'missing.jsonl')],
        `lockchaos check: ${join(dir, 'missing.jsonl')}: cannot read the history: no such file`,
      ],
    ];
    for (const [args, message] of cases) {
      err = [];
      expect(await checkCommand(args)).toBe(3);
      expect(err).toEqual([message]);
    }
  });

  it('refuses what is not a regular file in one line, exit 3, reading nothing: a device, a FIFO, a folder', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const folder = join(dir, 'folder.jsonl');
    mkdirSync(folder);
    for (const [path, kind] of [
      ['/dev/zero', 'a device'],
      [fifo, 'a FIFO'],
      [folder, 'a folder'],
    ]) {
      for (const limit of [['--time-limit', '5'], ['--memory-limit', '100'], []]) {
        err = [];
        expect(await checkCommand([path as string, ...limit])).toBe(3);
        expect(err).toEqual([
          `lockchaos check: ${path}: is ${kind}, not a regular file: give the history as a regular file (save a stream to one first)`,
        ]);
      }
    }
  });

  it('does not read a huge file whole: past the memory budget, unknown; past 512 MiB, refused', async () => {
    const huge = join(dir, 'huge.jsonl');
    writeFileSync(huge, '');
    truncateSync(huge, 2 ** 31); // 2 GiB, sparse: nothing is written
    expect(await checkCommand([huge])).toBe(2);
    expect(out).toEqual([
      `unknown  ${huge}: unknown: memory budget of 1024 MiB reached reading the history (2048 MiB); give a larger --memory-limit`,
    ]);
    expect(await checkCommand([huge, '--memory-limit', '4096'])).toBe(3);
    expect(err).toEqual([
      `lockchaos check: ${huge}: the history is 2048 MiB, past the limit of 512 MiB: the file is too large to read at once (split it, e.g. by key)`,
    ]);
  });

  it('counts reading against the time limit: a limit that ends before the file is read answers unknown', async () => {
    const path = file('long.jsonl', toJsonl(validMutex).repeat(2000));
    expect(await checkCommand([path, '--time-limit', '1e-9'])).toBe(2);
    expect(out).toEqual([
      `unknown  ${path}: unknown: time limit of 1e-9 s reached reading the history; give a larger --time-limit`,
    ]);
  });

  it('--initial, --format and a Jepsen log', async () => {
    const log = file(
      'history.txt',
      'INFO  jepsen.util - 0\t:invoke\t:read\tnil\nINFO  jepsen.util - 0\t:ok\t:read\t5\n',
    );
    expect(await checkCommand([log, '--format', 'jepsen-log'])).toBe(1);
    expect(await checkCommand([log, '--format', 'jepsen-log', '--initial', '5'])).toBe(0);
    const strings = file('s.jsonl', toJsonl(h([0, 'invoke', 'read'], [0, 'ok', 'read', 'abc'])));
    expect(await checkCommand([strings, '--initial', 'abc'])).toBe(0);
  });

  it('--only picks the operations of one model out of a run history', async () => {
    const run = file(
      'run.jsonl',
      toJsonl(
        h(
          [0, 'invoke', 'acquire'],
          [0, 'ok', 'acquire'],
          [0, 'invoke', 'read'],
          [0, 'ok', 'read', null],
          [0, 'invoke', 'release'],
          [0, 'ok', 'release'],
        ),
      ),
    );
    expect(await checkCommand([run])).toBe(3);
    expect(err[0]).toContain(
      "op 2: model mutex has no operation 'read' (it knows acquire, release); to check only the model's operations, give --only acquire,release",
    );
    expect(await checkCommand([run, '--only', 'acquire,release'])).toBe(0);
    expect(out[0]).toContain('[mutex (guessed: operations acquire/release), 2 operations (1 others ignored)');
    expect(await checkCommand([run, '--only', 'read,write'])).toBe(0);
    expect(out[1]).toContain('[register (guessed: operations read/write), 1 operations (2 others ignored)');
    // A name the history lacks (a model's, not a typo): checked without it, and said in one line.
    expect(err.slice(1)).toEqual([
      `lockchaos check: warning: ${run}: --only names write, which the history does not have: checked its read operations alone`,
    ]);
    err = [];
    expect(await checkCommand([run, '--only', 'acquire,release,get'])).toBe(0);
    expect(err).toEqual([
      `lockchaos check: warning: ${run}: --only names get, which the history does not have: checked its acquire, release operations alone`,
    ]);
  });

  it('several files in one process, hardest first: each its own memory budget and its own verdict', async () => {
    // a: hard enough that a 4 MiB budget runs out; b and c: not linearizable, found by the
    // search (mutex has no pre-check), each invalid alone under the same budget.
    const a = file('hard.jsonl', toJsonl(simulateHistory('register', 3, 50, 20_000, false)));
    const b = file('b3.jsonl', toJsonl(simulateHistory('mutex', 1, 8, 4000, true)));
    const c = file('c3.jsonl', toJsonl(simulateHistory('mutex', 3, 8, 4000, true)));
    for (const alone of [b, c]) expect(await checkCommand([alone, '--memory-limit', '4'])).toBe(1);
    out = [];
    expect(await checkCommand([a, b, c, '--memory-limit', '4'])).toBe(1);
    expect(out[0]).toMatch(/^unknown +.*hard\.jsonl: unknown: memory budget of 4 MiB reached in /);
    expect(out[1]).toMatch(/^invalid +.*b3\.jsonl: not linearizable: /);
    expect(out[2]).toMatch(/^invalid +.*c3\.jsonl: not linearizable: /);
    expect(out[3]).toMatch(/^3 files: 0 valid, 2 invalid, 1 unknown, 0 errors/);
  });

  it('nothing to check is an error, not valid: an empty file, no client operations, --only that picks none or names no operation', async () => {
    const none = 'the history has no client operations, so nothing would be checked: give a history that records some';
    const nemesisOnly = toJsonl(h(['nemesis', 'invoke', 'start'], ['nemesis', 'info', 'start']));
    const cases: [string, string[], string][] = [
      [file('empty.jsonl', ''), [], none],
      [file('blank.edn', '[]\n'), [], none],
      [file('nemesis.jsonl', nemesisOnly), [], none],
      [
        file('typo.jsonl', toJsonl(validMutex)),
        ['--only', 'read,write'],
        "--only read,write picks none of the history's operations (acquire, release): give some of those",
      ],
      // A typo next to a good name: ignored, it left release out and the history read INVALID.
      [
        file('typo2.jsonl', toJsonl(validMutex)),
        ['--only', 'acquire,relase'],
        "--only names relase, an operation neither the history nor any model has: give some of the history's operations (acquire, release)",
      ],
    ];
    for (const [path, args, message] of cases) {
      err = [];
      expect(await checkCommand([path, ...args])).toBe(3);
      expect(err).toEqual([`lockchaos check: ${path}: ${message}`]);
    }
    expect(out).toEqual([]);
  });

  it('a history whose operations all failed is valid (they certainly did not happen), as Knossos says', async () => {
    const path = file('failed.jsonl', toJsonl(h([0, 'invoke', 'acquire'], [0, 'fail', 'acquire'])));
    expect(await checkCommand([path])).toBe(0);
    expect(out[0]).toMatch(/^valid +.*: linearizable: 0 operations in 0 parts/);
  });

  it('bytes that are not UTF-8: exit 3, one line naming the byte and the fix', async () => {
    const path = join(dir, 'latin1.log');
    writeFileSync(path, Buffer.from('0\t:invoke\t:read\tnil\n0\t:ok\t:read\t"caf\xe9"\n', 'latin1'));
    expect(await checkCommand([path])).toBe(3);
    expect(err).toEqual([
      `lockchaos check: ${path} line 2: byte 0xE9 (offset 36) is not UTF-8 text: convert the file to UTF-8 (e.g. iconv -f latin1 -t utf-8)`,
    ]);
  });

  it('--memory-limit covers reading the file: one larger than the budget is unknown, and not read', async () => {
    const path = file('big.jsonl', toJsonl(simulateHistory('register', 3, 5, 2000, false)));
    expect(await checkCommand([path, '--memory-limit', '0.01'])).toBe(2);
    expect(out[0]).toMatch(
      /^unknown +.*big\.jsonl: unknown: memory budget of 11 KiB reached reading the history \(\d+ KiB\); give a larger --memory-limit$/,
    );
  });

  it('--help documents every option and the exit codes', async () => {
    expect(await checkCommand(['--help'])).toBe(0);
    const help = out.join('\n');
    for (const option of [
      '--model',
      '--format',
      '--initial',
      '--time-limit',
      '--memory-limit',
      '--only',
      '--threads',
      '--json',
      '--help',
    ])
      expect(help).toContain(option);
    for (const model of ['mutex', 'mutex-anon', 'register', 'cas-register', 'fenced-register', 'kv'])
      expect(help).toContain(model);
    expect(help).toContain('Exit codes: 0 valid, 1 invalid, 2 unknown');
    // --memory-limit 100 answered unknown at a peak of 1.1 GB: say what it bounds.
    expect(help).toContain('It bounds what the check holds, not the process');
  });
});

describe('lockchaos check of a file large enough for threads', () => {
  // A history padded with empty lines past the size a file of MIN_OPERATIONS operations
  // needs at least: checked as the small one it is, after the run again under the flags.
  const padded = () => file('padded.jsonl', `${toJsonl(invalidMutex)}\n${'\n'.repeat(8_000_001)}`);

  it('wants the parallel check node flags for it alone, on a machine with cores for threads', () => {
    const wanted = availableParallelism() >= 2 ? PARALLEL_NODE_FLAGS : [];
    expect(checkNodeFlags([padded(), '--json'])).toEqual(wanted);
    expect(checkNodeFlags([file('small.jsonl', toJsonl(invalidMutex)), padded()])).toEqual(wanted);
    expect(checkNodeFlags([file('small.jsonl', toJsonl(invalidMutex))])).toEqual([]);
    expect(checkNodeFlags([padded(), '--bogus'])).toEqual([]);
    expect(checkNodeFlags([padded(), '--help'])).toEqual([]);
    expect(checkNodeFlags([join(dir, 'absent.jsonl')])).toEqual([]);
  });

  it('the command line runs it again under them: the same lines and exit code as here', async () => {
    const path = padded();
    expect(await checkCommand([path])).toBe(1);
    // Every node of the command line (it, and the one it starts) writes down its flags as it
    // loads: the preload comes with the flags the re-run passes on.
    const flagsLog = join(dir, 'flags.log');
    const preload = file(
      'preload.mjs',
      `import { appendFileSync } from 'node:fs';\nappendFileSync(${JSON.stringify(flagsLog)}, JSON.stringify(process.execArgv.filter((f) => f.startsWith('--single'))) + '\\n');\n`,
    );
    const main = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
    const cli = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, main, 'check', path], {
      encoding: 'utf8',
    });
    expect(cli.status).toBe(1);
    expect(
      readFileSync(flagsLog, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual(availableParallelism() >= 2 ? [[], PARALLEL_NODE_FLAGS] : [[]]);
    // The time and the memory differ from run to run.
    const stable = (text: string) => text.replace(/[\d.]+ ms, memory [\d.]+ \w+/, '');
    expect(stable(cli.stdout)).toBe(stable(`${out.join('\n')}\n`));
    expect(cli.stderr).toBe('');
  });
});
