/**
 * A run's workload: the clients go, the nemesis runs its schedule until the time limit (or
 * an early stop), the faults heal, the clients finish their cycles, and the store is read
 * one last time. What it leaves for the check: the faults applied, the code points the
 * clients reached, and how the run did not run as configured.
 */
import type { Cluster } from '../cluster/cluster.js';
import { Recorder } from '../history/recorder.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import {
  cycleLeftOpen,
  healCounted,
  interrupted,
  overrun,
  type RunCondition,
  workerLost,
} from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import { monotonicNow, type Origin, sleep } from '../util/monotonic-clock.js';
import { Rng } from '../util/rng.js';
import type { RunFaults } from './faults.js';
import { finalRead } from './final-read.js';
import type { NodeWatch } from './node-watch.js';
import type { RunRecording } from './recording.js';
import type { WorkerPool } from './worker-pool.js';

/** What the workload phase leaves for the verdict. */
export interface WorkloadEnded {
  /** The faults, as data: a replay of this run (or a shrink of it) applies these. */
  applied: ScheduledFault[];
  /** How often the clients reached each code point, and each request on the wire: coverage. */
  reached: Record<string, number>;
  conditions: RunCondition[];
  /** The clients, whose errors and broken programs are read once the teardown has ended them. */
  pool: WorkerPool;
}

/** What the workload uses of the run besides its resolution: the recording, the log, and Ctrl-C. */
export interface WorkloadRun {
  recording: RunRecording;
  log: (line: string) => void;
  signal: AbortSignal | undefined;
}

export async function runWorkload(
  { config, workload }: ResolvedRun,
  on: { cluster: Cluster; faults: RunFaults; pool: WorkerPool; watch: NodeWatch },
  run: WorkloadRun,
  stopGraceMs: number | undefined,
): Promise<WorkloadEnded> {
  const { cluster, faults, pool, watch } = on;
  const origin = monotonicNow();
  run.recording.begin(origin);
  pool.go(origin);
  const timed = await untilTimeUp(config, { faults, pool }, run, origin);
  const conditions = timed.interrupted ? [timed.interrupted] : [];
  const graceMs = stopGraceMs ?? config.acquireTimeoutMs + 3 * config.requestTimeoutMs + config.holdMs + 2000;
  const stopping = monotonicNow();
  // Ctrl-C while the clients finish their cycles: those not done are killed at once.
  await pool.stop(graceMs, run.signal);
  const reached = { ...pool.pointsReached(), ...faults.wireReached() };
  const workloadS = timed.limitS + timed.heal.s + Number(monotonicNow() - stopping) / 1e9;
  const over = overrun(workloadS, config.timeLimitS, graceMs / 1000, timed.heal.cause);
  if (over) conditions.push(over);
  for (const lost of pool.lost) conditions.push(workerLost(lost));
  for (const client of pool.exitedOpen) conditions.push(cycleLeftOpen(client));
  // A node left down is said at once, as well as in the verdict: the system is not as the run found it.
  for (const lost of await watch.lost(timed.applied)) {
    run.log(lost.message);
    conditions.push(lost);
  }
  run.recording.finishProgress(); // after "time is up": every client's last op is in the count

  if (workload.usesStore && !run.recording.writer.error) {
    const recorder = new Recorder(pool.maxProcess() + 1, 1, origin, run.recording.record);
    const lost = await finalRead(cluster, config, recorder);
    if (lost) conditions.push(lost);
  }
  return { applied: timed.applied, reached, conditions, pool };
}

/**
 * The nemesis on its schedule until the time limit, Ctrl-C or an early stop, then every
 * fault healed. The workload's own time is the time limit as the timers kept it, and the
 * clients' stop after it; healing (a node restart, an etcd member replaced) is not counted,
 * unless a fault's stop failed and the clients ran on meanwhile.
 */
async function untilTimeUp(
  config: TestConfig,
  { faults, pool }: { faults: RunFaults; pool: WorkerPool },
  { recording, signal, log }: WorkloadRun,
  origin: Origin,
) {
  const { timeUp } = recording;
  const onAbort = () => timeUp.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) timeUp.abort(); // aborted while the clients were connecting
  const rng = new Rng(config.seed);
  const schedule = faults.run({ clients: pool.clients, rng, origin, record: recording.record, signal: timeUp.signal });
  log(
    `running ${config.workload} with ${config.concurrency} clients, nemesis ${config.nemesis}, for ${config.timeLimitS} s (seed ${config.seed})`,
  );
  await sleep(config.timeLimitS * 1000, timeUp.signal);
  const limitS = Number(monotonicNow() - origin) / 1e9;
  const interruptedAt = signal?.aborted
    ? interrupted(signal.reason, Number(monotonicNow() - origin) / 1e9, config.timeLimitS)
    : undefined;
  timeUp.abort();
  signal?.removeEventListener('abort', onAbort);
  await schedule;
  await faults.healAll();
  const heal = healCounted(Number(monotonicNow() - origin) / 1e9 - limitS, recording.stopFailed);
  const applied = faults.schedule();
  const early = recording.stoppedEarly;
  log(
    early
      ? `stopped early at ${early.atS} s (--stop-on-violation: ${early.why}): faults healed, clients finishing`
      : 'time is up: faults healed, clients finishing',
  );
  return { limitS, heal, applied, interrupted: interruptedAt };
}
