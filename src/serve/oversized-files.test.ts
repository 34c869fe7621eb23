/**
 * A store from anyone: a summary.json or test.json of hundreds of MiB is not read whole
 * (it cost the server 1.3 GB, and its folder left the page without a word). The index
 * skips it, and the page and the server's log line name it and its size.
 */
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveStore } from './server.js';
import { scanStore } from './store-index.js';
import { storePage } from './store-page.js';

const MiB = 2 ** 20;
const store = mkdtempSync(join(tmpdir(), 'lockchaos-serve-oversized-'));
afterAll(() => rmSync(store, { recursive: true, force: true }));

/** A file of `bytes` that takes no disk: sparse, all zeros, never read by a capped reader. */
function sparse(path: string, bytes: number): void {
  writeFileSync(path, '');
  truncateSync(path, bytes);
}

describe('serve over a store with oversized files', () => {
  it('skips a 400 MiB summary.json and test.json unread, and says which on the page and in its log line', async () => {
    const campaign = join(store, 'campaigns', 'nightly', '2026-12-01T02-00-00.000Z');
    mkdirSync(campaign, { recursive: true });
    sparse(join(campaign, 'summary.json'), 400 * MiB);
    const run = join(store, 'etcd-lock-set-none-unfenced', '2026-12-01T11-00-00.000Z');
    mkdirSync(run, { recursive: true });
    sparse(join(run, 'test.json'), 400 * MiB);
    const index = scanStore(store);
    expect(index.campaigns).toEqual([]);
    expect(index.runs).toEqual([]);
    expect(index.problems).toEqual([
      expect.stringMatching(/summary\.json: .*the campaign summary is 400 MiB, past the limit of 32 MiB/),
      expect.stringMatching(/test\.json: the test configuration is 400 MiB, past the limit of 16 MiB/),
    ]);
    const page = storePage(index, {}, 'test');
    expect(page).toContain('2 folders could not be read');
    expect(page).toContain('past the limit of 32 MiB');
    const served = await serveStore(store, 0);
    try {
      expect(served.indexed.problems).toHaveLength(2);
    } finally {
      await served.close();
    }
  });
});
