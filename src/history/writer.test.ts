import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HistoryWriter } from './writer.js';

describe('HistoryWriter', () => {
  it('leaves a readable prefix after every append, then rewrites in time order', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lockchaos-')), 'history.jsonl');
    const w = new HistoryWriter(path);
    w.append({ type: 'invoke', f: 'read', process: 0, time: 10 });
    w.append({ type: 'invoke', f: 'write', process: 1, time: 5 }); // arrived late
    const prefix = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(prefix.map((o) => o.index)).toEqual([0, 1]);
    const final = w.finish();
    expect(final.map((o) => [o.index, o.time])).toEqual([
      [0, 5],
      [1, 10],
    ]);
    const stored = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(stored).toEqual(final);
  });
});
