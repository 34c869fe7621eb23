import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshStateDirs } from '../../test/unit/state-dir.js';
import { parseInventory } from './inventory.js';
import { Ledger, ledgerDir, orphanedEntries } from './ledger.js';

describe("a target run's ledger", () => {
  freshStateDirs();
  const nodes = parseInventory({ nodes: [{ name: 'redis-1', address: '10.0.0.5', ssh: { user: 'root' } }] }, 'i.yaml', {
    backend: 'redis',
    port: 6379,
  }).nodes;

  it('records each warp on a host with the run before it reaches the host, and forgets it once restored', () => {
    const ledger = new Ledger('ab12', nodes);
    ledger.save();
    ledger.markWarped('redis-1', 4242, true);
    ledger.markWarped('redis-1', 4243, true);
    ledger.markWarped('redis-1', 4242, true); // once, however often
    const file = () => JSON.parse(readFileSync(join(ledgerDir(), 'ab12.json'), 'utf8'));
    expect(file()).toMatchObject({
      runId: 'ab12',
      warped: [
        { node: 'redis-1', pid: 4243 },
        { node: 'redis-1', pid: 4242 },
      ],
    });
    ledger.markWarped('redis-1', 4243, false);
    expect(ledger.recorded.warped).toEqual([{ node: 'redis-1', pid: 4242 }]);
    // This runner lives: not an orphan's; `all` finds it, warps and all.
    expect(orphanedEntries()).toEqual([]);
    expect(orphanedEntries('all')[0]?.warped).toEqual([{ node: 'redis-1', pid: 4242 }]);
  });

  it("reads an older runner's entry, with no warps, as one with none", () => {
    const old = { runId: 'cd34', owner: `${hostname()}:999999999:1`, nodes, killed: [] };
    new Ledger('ab12', nodes).save(); // makes the folder
    writeFileSync(join(ledgerDir(), 'cd34.json'), JSON.stringify(old));
    expect(orphanedEntries().map((e) => [e.runId, e.warped])).toEqual([['cd34', []]]);
  });
});
