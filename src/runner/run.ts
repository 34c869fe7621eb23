/**
 * One test run, start to verdict: the host made ready, the run folder made, then the run's
 * phases in order (runToVerdict lists them), each given what it uses. Each resource hands
 * its end to the teardown as it begins (teardown.ts), which ends them in `finally`, also on
 * abort (Ctrl-C).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Cluster } from '../cluster/cluster.js';
import { ensureEngine, ensureImage } from '../cluster/docker-engine.js';
import { reclaimOrphans } from '../cluster/reclaim.js';
import { STORE_KEY } from '../datastore/keys.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import {
  createRunFolder,
  nodeLogFile,
  type RunResult,
  runFile,
  type StoppedEarly,
  writeTestJson,
} from '../run-data/run-folder.js';
import { RunClock } from '../run-data/run-phases.js';
import { reclaimTargets } from '../target/heal.js';
import { errorMessage } from '../util/errors.js';
import { storageError } from '../util/fs-errors.js';
import { plural } from '../util/plural.js';
import { imagesOf } from './images.js';
import { judgeRun } from './judge-run.js';
import { NodeWatch } from './node-watch.js';
import { type ProgressStart, RunRecording } from './recording.js';
import {
  connectClients,
  forkWorkers,
  openFaults,
  startRunCluster,
  takeWorkloadSlot,
  type WorkloadSlot,
} from './run-start.js';
import { runWorkload, type WorkloadEnded } from './run-workload.js';
import { StartInterruption } from './start-interruption.js';
import { Teardown } from './teardown.js';

export type { RunObserver } from './recording.js';
export { LOCK_NAME } from './run-start.js';

export type { RunResult, StoppedEarly };

export interface RunHooks {
  log?: (line: string) => void;
  /** Aborting ends the workload early; the run still heals, tears down and checks. */
  signal?: AbortSignal;
  /**
   * Live progress while the workload runs: called once the clients are connected, with
   * the run's one overlap count; the observer sees every op as it is recorded. The runner
   * only runs: progress lines and report.html are its callers' (reported-run/reported-run.ts).
   */
  progress?: ProgressStart;
  /**
   * Open the per-client proxies though no fault needs them: an exploration's baseline, so
   * that its coverage counts every request the clients send on the wire. A hook of this
   * run, not the process's environment: a campaign runs other cells beside it.
   */
  proxies?: boolean;
  /** Build the node image when it is missing (default true). */
  buildImage?: boolean;
  /** Point <store>/latest at this run (default true; CI artifact stores want no symlinks). */
  latest?: boolean;
  /**
   * How long clients may take to finish their cycle once the time is up, before they are
   * killed (default: from the timeouts and the hold). A test shortens it to stop clients
   * in the middle of a cycle.
   */
  stopGraceMs?: number;
  /**
   * A campaign's limit on workloads at once: taken once the cluster is ready and the
   * clients are connected, and given back (the function it resolves to) once the workload
   * and its final read are over, before teardown and checking. So the next cells' clusters
   * start, and the last ones' tear down and check, while these run. Rejects when the
   * signal is aborted while waiting.
   */
  workloadSlot?: WorkloadSlot;
}

/** A resolved run (run-data/prepare.ts, run-data/resolve.ts), from the cluster's start to its verdict. */
export async function run(resolved: ResolvedRun, hooks: RunHooks = {}): Promise<RunResult> {
  try {
    return await runToVerdict(resolved, hooks);
  } catch (err) {
    throw storageError(err) ?? err;
  }
}

async function runToVerdict(resolved: ResolvedRun, hooks: RunHooks): Promise<RunResult> {
  const { config, workload } = resolved;
  const { signal, progress } = hooks;
  const log = hooks.log ?? (() => {});
  const clock = new RunClock();
  await readyTheHost(resolved, hooks.buildImage ?? true, log);
  const dir = createRunFolder(config.storeDir, config.name, hooks.latest !== false);
  writeTestJson(dir, config);
  const runId = randomBytes(4).toString('hex');
  const recording = new RunRecording(runFile(dir, 'history'), config, {
    progress: progress !== undefined,
    storeKey: workload.usesStore ? STORE_KEY : undefined,
  });
  const teardown = new Teardown(runId, log);
  const start = new StartInterruption(dir, config, clock, signal);
  // A campaign's cell: its workload runs beside other cells'.
  const beside = hooks.workloadSlot !== undefined;
  let done: WorkloadEnded;
  let notHealed: readonly string[];
  try {
    const pool = forkWorkers(resolved, { runId, record: recording.record, yieldCpu: beside }, teardown);
    const started = await startRunCluster(resolved, { runId, log, ahead: beside }, start, teardown);
    const { cluster } = started;
    notHealed = started.notHealed;
    clock.clusterReady();
    const faults = await openFaults(
      resolved,
      cluster,
      { runId, log, proxies: hooks.proxies === true },
      start,
      teardown,
    );
    // The nodes as they stand before the slot (a campaign's docker calls cost the slot
    // nothing): one that restarts from here on without the nemesis is noticed.
    const watch = await NodeWatch.begin(cluster.nodes.filter((n) => n.role === 'node'));
    // Clients connect before the slot: a campaign's cell waits for it ready to go, and its
    // slot holds the workload only.
    clock.phases.enter('ready');
    await connectClients(resolved, { pool, faults }, { recording, progress }, start, teardown);
    const giveBackSlot = await takeWorkloadSlot(hooks.workloadSlot, { cluster, log, clock }, start, teardown);
    clock.phases.enter('workload');
    done = await runWorkload(resolved, { cluster, faults, pool, watch }, { recording, log, signal }, hooks.stopGraceMs);
    // The workload and its final read are over: the next cell may run its own while this
    // one's nodes give their logs.
    giveBackSlot();
    await keepNodeLogs(cluster, dir, log);
  } finally {
    clock.phases.enter('teardown');
    await teardown.run();
    clock.phases.enter('check');
  }
  return judgeRun(resolved, done, { dir, recording, clock, log, signal, besideWorkloads: beside, notHealed });
}

/** The engine up, what crashed runs left removed (here and on targets), the nodes' images at hand. */
async function readyTheHost(resolved: ResolvedRun, build: boolean, log: (line: string) => void): Promise<void> {
  await ensureEngine();
  const swept = await reclaimOrphans();
  if (swept.containers.length + swept.networks.length + swept.workers + swept.cgroups + swept.clocks > 0) {
    log(
      `removed what crashed runs left: ${plural(swept.containers.length, 'container')}, ${plural(swept.networks.length, 'network')}, ${plural(swept.workers, 'worker')}, ${plural(swept.cgroups, 'client program cgroup')}, ${plural(swept.clocks, 'warped clock')} restored`,
    );
  }
  for (const problem of swept.clockProblems) log(`a crashed run's warped clock is not restored yet: ${problem}`);
  for (const name of swept.inUse)
    log(`a crashed run's network is still in use, not removed: ${name} (lockchaos cleanup says more)`);
  const healed = await reclaimTargets();
  if (healed.runs > 0 || healed.clocks > 0)
    log(
      `healed what crashed runs left on their targets: ${plural(healed.runs, 'run')}${healed.clocks > 0 ? `, ${plural(healed.clocks, 'warped clock')} restored` : ''}`,
    );
  for (const problem of healed.problems) log(`a crashed run's target is not healed yet: ${problem}`);
  await ensureImage({ build, log, ...imagesOf(resolved.nodeSpecs, resolved.config.backendModule) });
}

/** The nodes' logs into the run folder; a run whose logs are out of reach still gets its verdict. */
async function keepNodeLogs(cluster: Cluster, dir: string, log: (line: string) => void): Promise<void> {
  try {
    const logs = await cluster.collectLogs();
    for (const [name, text] of Object.entries(logs)) writeFileSync(nodeLogFile(dir, name), text);
  } catch (err) {
    const stored = storageError(err);
    if (stored) throw stored;
    log(`node logs not collected: ${errorMessage(err).split('\n')[0]}`);
  }
}
