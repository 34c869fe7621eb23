/**
 * Where a run's time goes, phase by phase: the fixed cost around its workload (starting the
 * cluster, waiting for a campaign's workload slot, connecting the clients, tearing down,
 * checking) is what a campaign of many short cells pays on every cell.
 */

/** A run's phases in the order they happen. */
export const RUN_PHASES = ['start', 'queued', 'ready', 'workload', 'teardown', 'check'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/** Seconds spent in each phase; a phase a run did not reach is absent. */
export type RunPhaseSeconds = Partial<Record<RunPhase, number>>;

/** Laps: each phase ends where the next begins. */
export class PhaseTimer {
  readonly seconds: RunPhaseSeconds = {};
  private last: number;

  constructor(start = Date.now()) {
    this.last = start;
  }

  /** The phase that ends now (time since the last phase ended is added to it). */
  end(phase: RunPhase): void {
    const now = Date.now();
    this.seconds[phase] = Math.round(((this.seconds[phase] ?? 0) + (now - this.last) / 1000) * 100) / 100;
    this.last = now;
  }
}
