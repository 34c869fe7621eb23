/**
 * Where a run's time goes, phase by phase: the fixed cost around its workload (starting the
 * cluster, connecting the clients, waiting for a campaign's workload slot, tearing down,
 * checking) is what a campaign of many short cells pays on every cell.
 */

/** A run's phases in the order they happen. */
export const RUN_PHASES = ['start', 'ready', 'queued', 'workload', 'teardown', 'check'] as const;
export type RunPhase = (typeof RUN_PHASES)[number];

/** Seconds spent in each phase; a phase a run did not reach is absent. */
export type RunPhaseSeconds = Partial<Record<RunPhase, number>>;

/** Laps: a run is in one phase at a time, each ending where the next begins. */
export class PhaseTimer {
  readonly seconds: RunPhaseSeconds = {};
  private phase: RunPhase = 'start';
  private since: number;

  constructor(start = Date.now()) {
    this.since = start;
  }

  /** The phase the run enters now, ending the one it was in (entered at the start: 'start'). */
  enter(phase: RunPhase): void {
    this.stop();
    this.phase = phase;
  }

  /** Adds the time since the phase was entered (or last stopped) to it. */
  stop(): void {
    const now = Date.now();
    this.seconds[this.phase] = Math.round(((this.seconds[this.phase] ?? 0) + (now - this.since) / 1000) * 100) / 100;
    this.since = now;
  }
}

/**
 * A run's times as its results give them: start to verdict, the part spent starting the
 * cluster, and each phase's.
 */
export class RunClock {
  readonly phases: PhaseTimer;
  private clusterS = 0;

  constructor(private readonly start = Date.now()) {
    this.phases = new PhaseTimer(start);
  }

  /** The cluster is up: what it took to start is the cost every run pays before its clients. */
  clusterReady(): void {
    this.clusterS = (Date.now() - this.start) / 1000;
  }

  timings(): { totalS: number; clusterS: number; phases: RunPhaseSeconds } {
    this.phases.stop();
    return { totalS: (Date.now() - this.start) / 1000, clusterS: this.clusterS, phases: this.phases.seconds };
  }
}
