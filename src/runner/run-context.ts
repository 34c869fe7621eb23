/** What every phase of one run is given: the run, where it is kept, and how it ends. */

import type { ResolvedRun } from '../run-data/resolve.js';
import type { RunClock } from '../run-data/run-phases.js';
import type { RunRecording } from './recording.js';
import type { Teardown } from './teardown.js';

export interface RunContext {
  resolved: ResolvedRun;
  /** Labels whatever the run starts, so that its teardown (or a later run's sweep) finds it. */
  runId: string;
  /** The run folder. */
  dir: string;
  log: (line: string) => void;
  /** Ctrl-C: each phase ends what it waits on at once. */
  signal?: AbortSignal;
  clock: RunClock;
  recording: RunRecording;
  teardown: Teardown;
  /** Open the per-client proxies though no fault needs them (RunHooks.proxies). */
  proxies: boolean;
  /** A campaign's cell (it takes a workload slot): other cells' workloads run beside it. */
  besideWorkloads: boolean;
  /** What the teardown could not heal on a target's nodes, a line per node: conditions of the run. */
  notHealed: string[];
}
