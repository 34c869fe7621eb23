/**
 * When each cell of a campaign starts: --parallel workloads at once, and `ahead` clusters
 * (one by default) started ahead of a free workload slot while finished cells tear down
 * and check, as memory allows. Cells on a target run one at a time: the hosts are shared,
 * and another's faults would land in its run.
 *
 * The order: first the cells that run their full time (in file order), then those decided
 * at their first violation (they expect invalid and stop early). A cell of the second kind
 * holds its slot a few seconds, less than its cluster takes to start, so one cluster ahead
 * cannot keep two slots busy with them: once no full-time cell is left to start or in its
 * workload, one more starts ahead. The full-time cells, whose timing is what their verdict
 * rests on (a lease that must not lapse), never run beside the extra cluster's start; the
 * others are decided by a fault they are sure to meet. The last cells are then short, and
 * the campaign's last slot is not left running one long cell alone.
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

/** A cell decided at its first violation: it expects invalid and stops early. */
const stopsEarly = (c: ResolvedCell) => c.expect === 'invalid' && c.resolved.config.stopOnViolation === true;

/** The cells in the order they start: those that run their full time first, each kind in file order. */
export function launchOrder(cells: readonly ResolvedCell[]): ResolvedCell[] {
  return [...cells.filter((c) => !stopsEarly(c)), ...cells.filter(stopsEarly)];
}

/** Runs one cell; it calls `workloadOver` once its workload is over (its slot given back). */
export type CellRunner = (cell: ResolvedCell, workloadOver: () => void) => Promise<void>;

/**
 * Starts every cell in launchOrder as room allows, until `signal` aborts (then none more);
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
  /** Of those, the ones that run their full time. */
  let fullTimeBeforeTheirEnd = 0;
  const launch = (one: ResolvedCell): Promise<void> => {
    let workloadOver = () => {};
    const over = new Promise<void>((resolve) => {
      workloadOver = resolve;
    });
    beforeTheirWorkloadEnds.add(over);
    const fullTime = !stopsEarly(one);
    if (fullTime) fullTimeBeforeTheirEnd++;
    void over.then(() => {
      beforeTheirWorkloadEnds.delete(over);
      if (fullTime) fullTimeBeforeTheirEnd--;
    });
    return (one.resolved.target ? onTarget : run)(one, workloadOver).finally(workloadOver);
  };
  const order = launchOrder(cells);
  let fullTimeToStart = order.filter((c) => !stopsEarly(c)).length;
  /** One more ahead once only cells that stop early are left (and ahead is asked for at all). */
  const ahead = () => room.ahead + (room.ahead > 0 && fullTimeToStart === 0 && fullTimeBeforeTheirEnd === 0 ? 1 : 0);
  /** Cells started and not ended; those past their workload tear down, check and report. */
  const inProgress = new Set<Promise<void>>();
  // Past their workload, as many as there are slots finish beside the running ones: more
  // would take the CPU the workloads' timing needs.
  const mayStartAnother = () =>
    inProgress.size < 2 * room.parallel + ahead() &&
    roomForAnotherCluster(beforeTheirWorkloadEnds.size, room.parallel, ahead());
  for (const one of order) {
    while (!signal.aborted && !mayStartAnother()) await Promise.race([...beforeTheirWorkloadEnds, ...inProgress]);
    if (signal.aborted) break;
    if (!stopsEarly(one)) fullTimeToStart--;
    const cell = launch(one);
    inProgress.add(cell);
    void cell.then(() => inProgress.delete(cell));
  }
  await Promise.all(inProgress);
}
