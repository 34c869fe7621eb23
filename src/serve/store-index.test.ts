/**
 * The store's index over run files from anyone: a test.json that is JSON but no object
 * gives one line naming it, not a run of '?' fields (nor a stack).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scanStore } from './store-index.js';

const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-index-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));

describe('the store index', () => {
  it.each(['5', 'null', '"a name"'])('names a run whose test.json is %s: not a JSON object', (text) => {
    const at = mkdtempSync(join(store, 's-'));
    const run = join(at, 'redis-mutex-none-fenced', '2026-12-01T11-00-00.000Z');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'test.json'), text);
    const index = scanStore(at);
    expect(index.runs).toEqual([]);
    expect(index.problems).toEqual([
      'redis-mutex-none-fenced/2026-12-01T11-00-00.000Z: test.json is not a JSON object',
    ]);
  });
});
