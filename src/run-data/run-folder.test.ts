import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { runConfig, runFolder } from '../../test/unit/run-folder-fixture.js';
import { userErrorOf } from '../../test/unit/user-error.js';
import { HistoryError } from '../history/errors.js';
import { UserError } from '../util/errors.js';
import {
  loadRun,
  MAX_HISTORY_BYTES,
  parseHistoryPrefix,
  RESULTS_HEAD_KEYS,
  RESULTS_SCHEMA,
  readHistoryPrefix,
  readResults,
  writeResults,
} from './run-folder.js';

const overlapping = () =>
  new H()
    .acquire(0, undefined, 'lockchaos:lock')
    .acquire(1, undefined, 'lockchaos:lock')
    .invoke(0, 'write', 'lockchaos:set', [1])
    .ok(0, 'write', 'lockchaos:set', [1]);

describe('reading a history prefix', () => {
  it('leaves out a last line cut mid-write, and names it', () => {
    const text = toJsonl(overlapping().ops);
    const cut = `${text}{"index":6,"type":"inv`;
    const r = parseHistoryPrefix(cut, 'h.jsonl');
    expect(r.history).toHaveLength(6);
    expect(r.droppedLine).toBe(7);
    expect(parseHistoryPrefix(text, 'h.jsonl').droppedLine).toBeUndefined();
  });

  it('keeps a complete last line without its newline', () => {
    const text = toJsonl(overlapping().ops).trimEnd();
    const r = parseHistoryPrefix(text, 'h.jsonl');
    expect(r.history).toHaveLength(6);
    expect(r.droppedLine).toBeUndefined();
  });

  it('rejects an unreadable line that is not the last', () => {
    const lines = toJsonl(overlapping().ops).split('\n');
    lines[3] = '{"index":3,"ty';
    expect(() => parseHistoryPrefix(lines.join('\n'), 'h.jsonl')).toThrow(HistoryError);
    expect(() => parseHistoryPrefix(lines.join('\n'), 'h.jsonl')).toThrow(/h\.jsonl line 4/);
  });

  it('puts an arrival-order prefix in time order, keeping the stored indices', () => {
    const ops = overlapping().ops;
    const swapped = [ops[0], ops[2], ops[1], ...ops.slice(3)].map((op, i) => ({ ...op, index: i }));
    const r = parseHistoryPrefix(toJsonl(swapped as typeof ops), 'h.jsonl');
    expect(r.history.map((op) => op.time)).toEqual(ops.map((op) => op.time));
    expect(r.history.map((op) => op.index).slice(0, 3)).toEqual([0, 2, 1]);
  });
});

describe('reading a history file in pieces', () => {
  it('reads the ops its text holds whole: lines across pieces and chunks, longer than a piece, not ASCII', () => {
    // Past one 16 MiB chunk, lines of every length up to 3 pieces (64 KiB each), errors in
    // two- and four-byte UTF-8, a complete last line without its newline.
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < 17 * 2 ** 20; i++) {
      const op = {
        index: i,
        type: i % 2 === 0 ? 'invoke' : 'fail',
        f: 'read',
        process: i % 5,
        time: i * 1000,
        key: 'k',
        value: 'v'.repeat((i * 7919) % (i % 97 === 0 ? 200_000 : 3000)),
        ...(i % 2 === 1 ? { error: `é😀 ${i}` } : {}),
      };
      lines.push(JSON.stringify(op));
      bytes += Buffer.byteLength(lines.at(-1) as string) + 1;
    }
    const text = lines.join('\n');
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-pieces-'));
    try {
      for (const [name, body] of [
        ['whole', text],
        ['cut', `${text}\n{"index":0,"ty`],
      ]) {
        const path = join(dir, `${name}.jsonl`);
        writeFileSync(path, body);
        const got = readHistoryPrefix(path);
        const want = parseHistoryPrefix(body, path);
        expect(got.history).toEqual(want.history);
        expect(got.droppedLine).toBe(want.droppedLine);
        expect(got.fingerprint.bytes).toBe(Buffer.byteLength(body));
      }
      expect(readHistoryPrefix(join(dir, 'cut.jsonl')).droppedLine).toBe(lines.length + 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('loading a run folder', () => {
  it('names a missing folder, a file, and a folder that is not a run', () => {
    expect(() => loadRun('/nonexistent/lockchaos-run')).toThrow('no such folder: /nonexistent/lockchaos-run');
    const dir = runFolder('');
    expect(() => loadRun(join(dir, 'test.json'))).toThrow(/is a file, not a run folder/);
    const parent = mkdtempSync(join(tmpdir(), 'lockchaos-store-'));
    mkdirSync(join(parent, '2026-11-29T08-53-02.652Z'));
    writeFileSync(join(parent, '2026-11-29T08-53-02.652Z', 'test.json'), '{}');
    expect(() => loadRun(parent)).toThrow(
      /is not a run folder: it has no test.json; it holds 1 run, e\.g\. .*2026-11-29T08-53-02\.652Z/,
    );
    expect(() => loadRun(parent)).toThrow(UserError);
  });

  it('names a broken test.json and a missing history', () => {
    const dir = runFolder('');
    writeFileSync(join(dir, 'test.json'), '{"seed": 3');
    expect(() => loadRun(dir)).toThrow(/test\.json' is not JSON/);
    const noHistory = mkdtempSync(join(tmpdir(), 'lockchaos-report-'));
    writeFileSync(join(noHistory, 'test.json'), JSON.stringify(runConfig));
    expect(() => loadRun(noHistory)).toThrow(/has test\.json but no history\.jsonl/);
  });

  it('uses results.json when there is one', () => {
    const results = {
      valid: true,
      timings: { totalS: 20, clusterS: 1 },
      results: [{ checker: 'mutual-exclusion', valid: true, counts: true, summary: 'stored' }],
    };
    const run = loadRun(runFolder(toJsonl(new H().acquire(0).release(0).ops), results));
    expect(run.checkedHere).toBe(false);
    expect(run.cutShort).toBeUndefined();
    expect(run.results[0]?.summary).toBe('stored');
    expect(run.timings).toEqual({ totalS: 20, clusterS: 1 });
  });

  it('checks a run interrupted while checking, and drops only that interruption', () => {
    const unchecked = 'interrupted (SIGINT) while checking: the history is complete; lockchaos report d checks it';
    const lost = { kind: 'worker-lost', message: 'client worker 1 lost at 3 s' };
    const results = {
      valid: 'unknown',
      conditions: [lost, { kind: 'interrupted', message: unchecked }],
      timings: { totalS: 20, clusterS: 1 },
      results: [],
      unchecked,
    };
    const run = loadRun(runFolder(toJsonl(overlapping().ops), results));
    expect(run.checkedHere).toBe(true);
    expect(run.cutShort).toBeUndefined(); // the run is complete; only its verdict was missing
    expect(run.conditions).toEqual([lost]);
    expect(run.results.find((r) => r.checker === 'mutual-exclusion')?.valid).toBe(false);
    expect(run.valid).toBe(false);
    expect(run.timings).toEqual({ totalS: 20, clusterS: 1 });
  });

  it('knows the interruption of the checking by its mark, whatever its message says', () => {
    const lost = { kind: 'worker-lost', message: 'client worker 1 lost at 3 s' };
    const stopped = { kind: 'interrupted', message: 'interrupted (SIGTERM) while checking', whileChecking: true };
    const results = { valid: 'unknown', conditions: [lost, stopped], results: [], unchecked: 'worded otherwise' };
    expect(loadRun(runFolder(toJsonl(overlapping().ops), results)).conditions).toEqual([lost]);
  });

  it('checks a killed run itself and says it was cut short', () => {
    const text = `${toJsonl(overlapping().ops)}{"index":6,"ty`;
    const run = loadRun(runFolder(text));
    expect(run.checkedHere).toBe(true);
    expect(run.droppedLine).toBe(7);
    expect(run.cutShort).toMatch(
      /no results\.json.*checked here on the 6 operations recorded; history\.jsonl line 7, the last, was cut mid-write/,
    );
    expect(run.results.map((r) => [r.checker, r.valid])).toEqual([
      ['mutual-exclusion', false],
      ['linearizable(mutex)', false],
      ['lost-updates', 'unknown'],
      ['fencing', true],
      ['linearizable(register)', true],
      ['evidence', 'unknown'],
      ['perf', true],
    ]);
    expect(run.valid).toBe(false);
  });

  it('answers unknown for lost updates without the final read, and checks them with it', () => {
    // p0 adds 1; p1 reads [1] during the run; p0 adds 2 (acknowledged): the run stops there.
    const during = new H()
      .invoke(0, 'write', 'lockchaos:set', [1])
      .ok(0, 'write', 'lockchaos:set', [1])
      .invoke(1, 'read', 'lockchaos:set')
      .ok(1, 'read', 'lockchaos:set', [1])
      .invoke(1, 'write', 'lockchaos:set', [1, 2])
      .ok(1, 'write', 'lockchaos:set', [1, 2]);
    const prefix = loadRun(runFolder(toJsonl(during.ops)));
    expect(prefix.results.find((r) => r.checker === 'lost-updates')).toMatchObject({
      valid: 'unknown',
      summary: expect.stringMatching(/^no final read: the run stopped before it/),
    });
    expect(prefix.valid).toBe('unknown');
    // With the runner's final read (a process of its own, after every write), a loss counts.
    const complete = during.invoke(5, 'read', 'lockchaos:set').ok(5, 'read', 'lockchaos:set', [1]);
    const run = loadRun(runFolder(toJsonl(complete.ops)));
    expect(run.results.find((r) => r.checker === 'lost-updates')?.valid).toBe(false);
  });

  it('checks the store key test.json records, not one guessed from the history', () => {
    // The first write goes to another key: a guess from the history would judge that one.
    const h = new H()
      .invoke(2, 'write', 'scratch', [7])
      .ok(2, 'write', 'scratch', [7])
      .invoke(0, 'write', 'app:state', [1])
      .ok(0, 'write', 'app:state', [1])
      .invoke(1, 'write', 'app:state', [2])
      .ok(1, 'write', 'app:state', [2])
      .invoke(5, 'read', 'app:state')
      .ok(5, 'read', 'app:state', [2]);
    const lostUpdates = (stored: object) =>
      loadRun(runFolder(toJsonl(h.ops), undefined, stored)).results.find((r) => r.checker === 'lost-updates');
    expect(lostUpdates({ ...runConfig, storeKey: 'app:state' })).toMatchObject({ valid: false });
    // An older folder has no storeKey: the runner's one key, which this history never wrote.
    expect(lostUpdates(runConfig)?.valid).not.toBe(false);
  });

  it('checks again when results.json is unreadable', () => {
    const dir = runFolder(toJsonl(new H().acquire(0).release(0).ops));
    writeFileSync(join(dir, 'results.json'), '{"valid": tr');
    const run = loadRun(dir);
    expect(run.checkedHere).toBe(true);
    expect(run.cutShort).toMatch(/results\.json is unreadable/);
  });

  it('refuses a history value or a test.json nested 100,000 deep in one line (no stack overflow later)', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const line = `{"index":0,"type":"invoke","f":"write","process":0,"time":1,"key":"lockchaos:set","value":${deep}}\n`;
    expect(() => loadRun(runFolder(line))).toThrow(UserError);
    expect(() => loadRun(runFolder(line))).toThrow(/history\.jsonl: op #0 nests more than 64 levels deep/);
    const dir = runFolder(toJsonl(overlapping().ops));
    writeFileSync(
      join(dir, 'test.json'),
      JSON.stringify({ ...runConfig, extra: 0 }).replace('"extra":0', `"extra":${deep}`),
    );
    expect(() => loadRun(dir)).toThrow(/test\.json' is not a test configuration: it nests more than 64 levels deep/);
  });
});

describe('a run folder someone else made: every file read has a bound', () => {
  const refusal = (dir: string) => userErrorOf(() => loadRun(dir));

  it('refuses a history or test.json that is a device, a FIFO or a folder, in one line', () => {
    const history = toJsonl(overlapping().ops);
    const zero = runFolder(history);
    rmSync(join(zero, 'history.jsonl'));
    symlinkSync('/dev/zero', join(zero, 'history.jsonl'));
    expect(refusal(zero)).toBe(
      `${join(zero, 'history.jsonl')}: is a device, not a regular file: give the history as a regular file (save a stream to one first)`,
    );
    const fifo = runFolder(history);
    rmSync(join(fifo, 'test.json'));
    execFileSync('mkfifo', [join(fifo, 'test.json')]);
    expect(refusal(fifo)).toMatch(/test\.json: is a FIFO, not a regular file/);
    const folder = runFolder(history);
    rmSync(join(folder, 'history.jsonl'));
    mkdirSync(join(folder, 'history.jsonl'));
    expect(refusal(folder)).toMatch(/history\.jsonl: is a folder, not a regular file/);
  });

  it('refuses a history past its limit without reading it (a sparse 2 GiB file)', () => {
    const dir = runFolder('');
    truncateSync(join(dir, 'history.jsonl'), MAX_HISTORY_BYTES + 1);
    expect(refusal(dir)).toMatch(
      /history\.jsonl: the history is 1024 MiB, past the limit of 1024 MiB: check it with lockchaos check/,
    );
  });

  it('takes a results.json that is not a regular file as unreadable: checked here', () => {
    const dir = runFolder(toJsonl(overlapping().ops));
    symlinkSync('/dev/zero', join(dir, 'results.json'));
    const run = loadRun(dir);
    expect(run.checkedHere).toBe(true);
    expect(run.cutShort).toMatch(/^results\.json is unreadable \(.*results\.json: is a device, not a regular file/);
  });
});

describe('results.json and the history on disk', () => {
  it('records the history it was made from; a report rechecks a history cut or edited since, and says so', () => {
    // Two holders at once: INVALID on the whole history; the first acquire alone is valid.
    const ops = overlapping().ops;
    const dir = runFolder(toJsonl(ops));
    writeResults(dir, {
      valid: false,
      conditions: [],
      config: runConfig,
      timings: { totalS: 20, clusterS: 1 },
      results: [{ checker: 'mutual-exclusion', valid: false, counts: true, summary: 'two holders' }],
    });
    const saved = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect(saved.history).toEqual({ bytes: toJsonl(ops).length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    // As written: results.json's own figures.
    const asWritten = loadRun(dir);
    expect(asWritten.checkedHere).toBe(false);
    expect(asWritten.cutShort).toBeUndefined();
    // Cut to its first two lines: checked again, on what is there, and said in one line.
    writeFileSync(join(dir, 'history.jsonl'), toJsonl(ops.slice(0, 2)));
    const cut = loadRun(dir);
    expect(cut.checkedHere).toBe(true);
    expect(cut.valid).not.toBe(false);
    expect(cut.cutShort).toBe(
      `history.jsonl is not the one results.json was made from (${saved.history.bytes} bytes then, ${toJsonl(ops.slice(0, 2)).length} now); checked here on the 2 operations recorded`,
    );
    // The same length, another operation: its hash tells.
    const edited = toJsonl(ops).replace('"process":1', '"process":2');
    writeFileSync(join(dir, 'history.jsonl'), edited);
    expect(edited.length).toBe(saved.history.bytes);
    expect(loadRun(dir).cutShort).toMatch(/\(\d+ bytes then, \d+ now, its SHA-256 differs\); checked here on the 6/);
  });
});

describe('results.json, its one writer and its one reader', () => {
  it('writes the stamp, the verdict, the conditions and the configuration first, the fingerprint last', () => {
    const dir = runFolder(toJsonl(new H().acquire(0).release(0).ops));
    const stoppedEarly = { atS: 3, why: 'two holders' };
    writeResults(dir, {
      results: [{ checker: 'mutual-exclusion', valid: true, counts: true, summary: 'ok' }],
      stoppedEarly,
      unchecked: 'interrupted',
      timings: { totalS: 20, clusterS: 1 },
      config: runConfig,
      conditions: [],
      valid: true,
    });
    const text = readFileSync(join(dir, 'results.json'), 'utf8');
    const keys = Object.keys(JSON.parse(text));
    expect(keys.slice(0, RESULTS_HEAD_KEYS.length)).toEqual([...RESULTS_HEAD_KEYS]);
    expect(keys).toEqual([...RESULTS_HEAD_KEYS, 'timings', 'results', 'stoppedEarly', 'unchecked', 'history']);
    const read = readResults(join(dir, 'results.json'));
    expect(read.schema).toBe(RESULTS_SCHEMA);
    expect(read).toMatchObject({
      valid: true,
      conditions: [],
      config: runConfig,
      stoppedEarly,
      unchecked: 'interrupted',
    });
  });

  it('reads a results.json of the first runs: no stamp, no conditions, no fingerprint, no configuration', () => {
    // As the runner wrote it before version.ts's stamp, the conditions and the history's fingerprint.
    const old = {
      valid: false,
      timings: { totalS: 20, clusterS: 1 },
      results: [{ checker: 'mutual-exclusion', valid: false, counts: true, summary: 'two holders' }],
    };
    const dir = runFolder(toJsonl(overlapping().ops), old, { ...runConfig, storeKey: 'lockchaos:set' });
    expect(readResults(join(dir, 'results.json'))).toEqual({ schema: 1, conditions: [], ...old });
    const run = loadRun(dir);
    expect(run.checkedHere).toBe(false);
    expect(run.cutShort).toBeUndefined();
    expect(run.valid).toBe(false);
    expect(run.conditions).toEqual([]);
    expect(run.results[0]?.summary).toBe('two holders');
    expect(run.recorded.storeKey).toBe('lockchaos:set');
    // Without a verdict: its results' count.
    const { valid: _v, ...noVerdict } = old;
    expect(readResults(join(runFolder('', noVerdict), 'results.json')).valid).toBe(false);
  });
});
