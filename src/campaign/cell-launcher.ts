/**
 * When each cell of a campaign starts: --parallel workloads at once, and `ahead` clusters
 * (one by default) started ahead of a free workload slot while finished cells tear down
 * and check, as memory allows. Cells on a target run one at a time: the hosts are shared,
 * and another's faults would land in its run.
 */
import { freemem } from 'node:os';
import type { ResolvedCell } from './matrix.js';

/** Free memory below which no cluster starts ahead of a slot: a ZooKeeper ensemble's JVMs and then some. */
const SPARE_MEMORY_FOR_A_CLUSTER = 1.5 * 1024 ** 3;

/**
 * Whether one more cell may start its cluster: up to --parallel cells before their workload
 * ends at any time, and `ahead` more started ahead while the machine has memory to spare.
 */
function roomForAnotherCluster(started: number, parallel: number, ahead: number): boolean {
  if (started < parallel) return true;
  return started < parallel + ahead && freemem() >= SPARE_MEMORY_FOR_A_CLUSTER;
}

/** Runs one cell; it calls `workloadOver` once its workload is over (its slot given back). */
export type CellRunner = (cell: ResolvedCell, workloadOver: () => void) => Promise<void>;

/**
 * Starts every cell in order as room allows, until `signal` aborts (then none more);
 * resolves when every cell started has ended.
 */
export async function launchCells(
  cells: readonly ResolvedCell[],
  room: { parallel: number; ahead: number },
  signal: AbortSignal,
  run: CellRunner,
): Promise<void> {
  let targetTurn: Promise<unknown> = Promise.resolve();
  const onTarget: CellRunner = (one, workloadOver) => {
    const turn = targetTurn.then(() => run(one, workloadOver));
    targetTurn = turn.catch(() => undefined);
    return turn;
  };
  /** Cells started whose workload is not over yet (starting, waiting for a slot, running). */
  const beforeTheirWorkloadEnds = new Set<Promise<void>>();
  const launch = (one: ResolvedCell): Promise<void> => {
    let workloadOver = () => {};
    const over = new Promise<void>((resolve) => {
      workloadOver = resolve;
    });
    beforeTheirWorkloadEnds.add(over);
    void over.then(() => beforeTheirWorkloadEnds.delete(over));
    return (one.resolved.target ? onTarget : run)(one, workloadOver).finally(workloadOver);
  };
  /** Cells started and not ended; those past their workload tear down, check and report. */
  const inProgress = new Set<Promise<void>>();
  // Past their workload, as many as there are slots finish beside the running ones: more
  // would take the CPU the workloads' timing needs.
  const mayStartAnother = () =>
    inProgress.size < 2 * room.parallel + room.ahead &&
    roomForAnotherCluster(beforeTheirWorkloadEnds.size, room.parallel, room.ahead);
  for (const one of cells) {
    while (!signal.aborted && !mayStartAnother()) await Promise.race([...beforeTheirWorkloadEnds, ...inProgress]);
    if (signal.aborted) break;
    const cell = launch(one);
    inProgress.add(cell);
    void cell.then(() => inProgress.delete(cell));
  }
  await Promise.all(inProgress);
}
