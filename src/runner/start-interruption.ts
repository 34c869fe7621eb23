/**
 * Ctrl-C before the workload began: nothing to check, but the folder says so (results.json
 * with the condition, no checks), so that `report` on it says interrupted, not killed. The
 * start's phases end what they wait on at once: a phase's own deadline would keep the user
 * waiting.
 */
import { interrupted, RunInterrupted } from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import { writeResults } from '../run-data/run-folder.js';
import type { RunClock } from '../run-data/run-phases.js';

export class StartInterruption {
  /** `dir`: the run folder the interruption is written to, with `config` and the times so far. */
  constructor(
    private readonly dir: string,
    private readonly config: TestConfig,
    private readonly clock: RunClock,
    /** Ctrl-C. */
    readonly signal: AbortSignal | undefined,
  ) {}

  /** The run's interruption, written to its folder: what a phase throws once Ctrl-C came. */
  interruption(): RunInterrupted {
    const condition = interrupted(this.signal?.reason, undefined, this.config.timeLimitS);
    writeResults(this.dir, {
      valid: 'unknown',
      conditions: [condition],
      config: this.config,
      timings: this.clock.timings(),
      results: [],
    });
    return new RunInterrupted(condition);
  }

  /** Throws the interruption when Ctrl-C came. */
  throwIfAborted(): void {
    if (this.signal?.aborted) throw this.interruption();
  }

  /** For a wait of the start that Ctrl-C ends (its `.catch`): the interruption of the run, else the wait's own error. */
  readonly rethrow = (err: unknown): never => {
    this.throwIfAborted();
    throw err;
  };
}
