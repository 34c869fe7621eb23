/**
 * The campaign's launch order and room, with a runner whose cells end when the test says:
 * full-time cells start first, and one more cluster starts ahead only once every cell left
 * stops early.
 */
import { describe, expect, it, vi } from 'vitest';
import { launchCells, launchOrder } from './cell-launcher.js';
import type { ResolvedCell } from './matrix.js';

// Memory to spare, whatever this machine has free now.
vi.mock('node:os', async (original) => ({
  ...(await original<typeof import('node:os')>()),
  freemem: () => 64 * 1024 ** 3,
}));

/** `F` runs its full time (expects valid), `E` stops at its first violation (expects invalid). */
function cells(kinds: string): ResolvedCell[] {
  return [...kinds].map((kind, index) => {
    const early = kind === 'E';
    return {
      index,
      id: `${kind}${index}`,
      expect: early ? 'invalid' : 'valid',
      resolved: { config: { stopOnViolation: early ? true : undefined } },
    } as unknown as ResolvedCell;
  });
}

const ids = (list: readonly ResolvedCell[]) => list.map((c) => c.id);

/** A runner whose cells end their workload, and then their run, when told. */
function controlledRunner() {
  const started: string[] = [];
  const ends = new Map<string, { workload: () => void; run: () => void }>();
  const run = (cell: ResolvedCell, workloadOver: () => void) =>
    new Promise<void>((resolve) => {
      started.push(cell.id);
      ends.set(cell.id, { workload: workloadOver, run: resolve });
    });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  /** Ends a cell's workload and its run (its teardown, check and report), then lets the launcher go on. */
  const finish = async (id: string) => {
    ends.get(id)?.workload();
    ends.get(id)?.run();
    await settle();
  };
  return { started, run, finish, settle };
}

describe('launchOrder', () => {
  it('puts the cells that run their full time first, each kind in file order', () => {
    expect(ids(launchOrder(cells('FEFEEF')))).toEqual(['F0', 'F2', 'F5', 'E1', 'E3', 'E4']);
  });

  it('keeps file order when every cell is of one kind', () => {
    expect(ids(launchOrder(cells('FFF')))).toEqual(['F0', 'F1', 'F2']);
    expect(ids(launchOrder(cells('EEE')))).toEqual(['E0', 'E1', 'E2']);
  });
});

describe('launchCells', () => {
  it('one cluster ahead while a full-time cell is left; two once only early stoppers are', async () => {
    const r = controlledRunner();
    const done = launchCells(cells('FEFEEE'), { parallel: 1, ahead: 1 }, new AbortController().signal, r.run);
    await r.settle();
    // One slot, one ahead: the two full-time cells.
    expect(r.started).toEqual(['F0', 'F2']);
    await r.finish('F0');
    // F2 is a full-time cell in its workload: still one ahead.
    expect(r.started).toEqual(['F0', 'F2', 'E1']);
    await r.finish('F2');
    // Only early stoppers left and none of the full-time cells before its end: two ahead.
    expect(r.started).toEqual(['F0', 'F2', 'E1', 'E3', 'E4']);
    for (const id of ['E1', 'E3', 'E4', 'E5']) await r.finish(id);
    await done;
    expect(r.started).toEqual(['F0', 'F2', 'E1', 'E3', 'E4', 'E5']);
  });

  it('no cluster ahead asked for: none ahead for the early stoppers either', async () => {
    const r = controlledRunner();
    const done = launchCells(cells('EEE'), { parallel: 1, ahead: 0 }, new AbortController().signal, r.run);
    await r.settle();
    expect(r.started).toEqual(['E0']);
    await r.finish('E0');
    expect(r.started).toEqual(['E0', 'E1']);
    for (const id of ['E1', 'E2']) await r.finish(id);
    await done;
  });
});
