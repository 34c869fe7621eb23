/**
 * When each cell of a campaign starts: --parallel workloads at once, and `ahead` clusters
 * (one by default) started ahead of a free workload slot while finished cells tear down
 * and check, as memory allows. Cells on a target run one at a time: the hosts are shared,
 * and another's faults would land in its run.
 *
 * Cells start in file order, but for the campaign's last ones: among the cells in flight
 * together at its end (2 × --parallel + ahead, the launcher's depth), those that run their
 * full time start before those that will stop at their first violation. A full-time cell
 * started last would hold one slot for its whole workload while the other idles; started
 * first, the short cells fill the other slot beside it (the longest-first rule of
 * scheduling, kept to the end: all of a campaign in that order put the full-time workloads,
 * which time leases, beside a churn of short cells' starts, and was no faster).
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

/** Whether a cell ends at its first violation: one that expects invalid, unless told to run its full time. */
export function stopsEarly(cell: ResolvedCell): boolean {
  return cell.expect === 'invalid' && cell.resolved.config.stopOnViolation === true;
}

/**
 * The order cells start in: file order, but among the last `depth` cells, those that run
 * their full time first, then the early stoppers, each in file order.
 */
export function launchOrder<C extends ResolvedCell>(cells: readonly C[], depth: number): C[] {
  const cut = Math.max(0, cells.length - depth);
  const last = cells.slice(cut);
  return [...cells.slice(0, cut), ...last.filter((c) => !stopsEarly(c)), ...last.filter(stopsEarly)];
}

/** Runs one cell; it calls `workloadOver` once its workload is over (its slot given back). */
export type CellRunner = (cell: ResolvedCell, workloadOver: () => void) => Promise<void>;

/**
 * Starts every cell in launch order as room allows, until `signal` aborts (then none more);
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
  const depth = 2 * room.parallel + room.ahead;
  const mayStartAnother = () =>
    inProgress.size < depth && roomForAnotherCluster(beforeTheirWorkloadEnds.size, room.parallel, room.ahead);
  for (const one of launchOrder(cells, depth)) {
    while (!signal.aborted && !mayStartAnother()) await Promise.race([...beforeTheirWorkloadEnds, ...inProgress]);
    if (signal.aborted) break;
    const cell = launch(one);
    inProgress.add(cell);
    void cell.then(() => inProgress.delete(cell));
  }
  await Promise.all(inProgress);
}
