/**
 * One test run, start to verdict: the host made ready, the run folder made, then the run's
 * phases in order: the clients forked, the cluster started, its faults' proxies opened, the
 * clients connected, a campaign's workload slot taken, the workload run and healed, the
 * teardown, the check. Each resource hands its end to the teardown as it begins
 * (teardown.ts), which ends them in `finally`, also on abort (Ctrl-C).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { cappedPointsResult, codePointsResult, coverage } from '../../checkers/coverage.js';
import { faultWindows } from '../../checkers/fault-windows.js';
import { countedVerdict } from '../../checkers/result.js';
import { CHECK_INTERRUPTED, interruptibleCheckRun } from '../../workloads/checks.js';
import { clientProgramName, MAX_PROGRAM_POINTS } from '../backends/client-protocol.js';
import type { Cluster } from '../cluster/cluster.js';
import { ensureEngine, ensureImage } from '../cluster/docker-engine.js';
import { reclaimOrphans } from '../cluster/reclaim.js';
import { STORE_KEY } from '../datastore/keys.js';
import { aimedFaults } from '../nemesis/aimed-faults.js';
import { badGrants, checkInterrupted, notHealed, runVerdict } from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import {
  createRunFolder,
  nodeLogFile,
  type RunResult,
  runFile,
  type StoppedEarly,
  writeResults,
  writeTestJson,
} from '../run-data/run-folder.js';
import { RunClock } from '../run-data/run-phases.js';
import { reclaimTargets } from '../target/heal.js';
import { errorMessage } from '../util/errors.js';
import { storageError } from '../util/fs-errors.js';
import { plural } from '../util/plural.js';
import { imagesOf } from './images.js';
import { stallsBehindOverlaps, stallsLine, unaskedStalls } from './machine-stalls.js';
import { NodeWatch } from './node-watch.js';
import { classifyBrokenPrograms } from './program-failures.js';
import { type ProgressStart, RunRecording } from './recording.js';
import type { RunContext } from './run-context.js';
import { connectClients, forkWorkers, openFaults, startRunCluster, takeWorkloadSlot } from './run-start.js';
import { runWorkload, type WorkloadEnded } from './run-workload.js';
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
  workloadSlot?: (signal: AbortSignal | undefined) => Promise<() => void>;
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
  const log = hooks.log ?? (() => {});
  const clock = new RunClock();
  await readyTheHost(resolved, hooks.buildImage ?? true, log);
  const dir = createRunFolder(config.storeDir, config.name, hooks.latest !== false);
  writeTestJson(dir, config);
  const runId = randomBytes(4).toString('hex');
  const recording = new RunRecording(runFile(dir, 'history'), config, {
    progress: hooks.progress !== undefined,
    storeKey: workload.usesStore ? STORE_KEY : undefined,
  });
  const teardown = new Teardown(runId, log);
  const besideWorkloads = hooks.workloadSlot !== undefined;
  const run: RunContext = {
    resolved,
    runId,
    dir,
    log,
    signal: hooks.signal,
    clock,
    recording,
    teardown,
    besideWorkloads,
    proxies: hooks.proxies === true,
    notHealed: [],
  };
  let done: WorkloadEnded;
  try {
    const pool = forkWorkers(run);
    const cluster = await startRunCluster(run);
    const faults = await openFaults(run, cluster);
    // The nodes as they stand before the slot (a campaign's docker calls cost the slot
    // nothing): one that restarts from here on without the nemesis is noticed.
    const watch = await NodeWatch.begin(cluster.nodes.filter((n) => n.role === 'node'));
    // Clients connect before the slot: a campaign's cell waits for it ready to go, and its
    // slot holds the workload only.
    await connectClients(run, pool, faults, hooks.progress);
    const giveBackSlot = await takeWorkloadSlot(run, cluster, hooks.workloadSlot);
    done = await runWorkload(run, { cluster, faults, pool, watch }, hooks.stopGraceMs);
    // The workload and its final read are over: the next cell may run its own while this
    // one's nodes give their logs.
    giveBackSlot();
    await keepNodeLogs(run, cluster);
  } finally {
    clock.phases.enter('teardown');
    await teardown.run();
    clock.phases.enter('check');
  }
  return judgeRun(run, done);
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
  if (healed.runs > 0) log(`healed what crashed runs left on their targets: ${plural(healed.runs, 'run')}`);
  for (const problem of healed.problems) log(`a crashed run's target is not healed yet: ${problem}`);
  await ensureImage({ build, log, ...imagesOf(resolved.nodeSpecs, resolved.config.backendModule) });
}

/** The nodes' logs into the run folder; a run whose logs are out of reach still gets its verdict. */
async function keepNodeLogs(run: RunContext, cluster: Cluster): Promise<void> {
  try {
    const logs = await cluster.collectLogs();
    for (const [name, text] of Object.entries(logs)) writeFileSync(nodeLogFile(run.dir, name), text);
  } catch (err) {
    const stored = storageError(err);
    if (stored) throw stored;
    run.log(`node logs not collected: ${errorMessage(err).split('\n')[0]}`);
  }
}

/** The history checked against the run's conditions: the verdict, in results.json and returned. */
async function judgeRun(run: RunContext, done: WorkloadEnded): Promise<RunResult> {
  const { resolved, dir, recording, clock } = run;
  const { backend, config } = resolved;
  const { writer, stoppedEarly } = recording;
  const { conditions, pool, applied } = done;
  if (writer.error) {
    const stored = storageError(writer.error, writer.path);
    throw stored ?? writer.error;
  }
  const history = writer.finish();
  conditions.push(...run.notHealed.map(notHealed));
  const refused = badGrants(history, backend.name);
  if (refused) conditions.push(refused);
  // A program that broke under a fault is the library's failure (a counted result); one
  // with no fault near, a condition (program-failures.ts).
  const windows = faultWindows(history);
  const programs = classifyBrokenPrograms(pool.brokenPrograms, windows, {
    ttlMs: config.ttlMs,
    command: clientProgramName(config.clientCommand ?? ''),
  });
  conditions.push(...programs.conditions);
  // A holder the machine stalled past its lease: the overlap is the harness's, not the lock's.
  const unasked = unaskedStalls(pool.stalls, windows);
  conditions.push(...stallsBehindOverlaps(history, unasked, config.ttlMs));
  const stalled = stallsLine(unasked);
  if (stalled) run.log(stalled);
  if (pool.errors.length) throw new Error(`client workers failed:\n${pool.errors.join('\n')}`);

  // test.json again, now with the faults the run applied: its schedule, as data.
  const recorded = { storeKey: STORE_KEY, schedule: applied };
  writeTestJson(dir, config, recorded);
  // The configuration to run it again, as a stored run reads back (run-folder.ts rerunConfig).
  const ran: TestConfig = { ...config, schedule: applied };
  // On a thread that Ctrl-C ends (a long search must not hold the run hostage); a run whose
  // workload was interrupted has had its Ctrl-C: a second one during checking quits at once.
  // One that came after the workload (the clients' stop, the teardown) ends the checking:
  // the history is complete, and `report` checks it.
  const workloadInterrupted = conditions.some((c) => c.kind === 'interrupted');
  const checkSignal = workloadInterrupted ? new AbortController().signal : run.signal;
  const checked = await interruptibleCheckRun(
    history,
    config,
    { storeKey: STORE_KEY },
    checkSignal,
    run.besideWorkloads,
  );
  const early = stoppedEarly ? { stoppedEarly } : {};
  if (checked === CHECK_INTERRUPTED) {
    // The workload ran and is recorded in full: only the verdict is missing, and the
    // report command gives it (it checks a folder whose results say unchecked).
    const unchecked = checkInterrupted(run.signal?.reason, dir);
    conditions.push(unchecked);
    const fields = {
      valid: 'unknown' as const,
      conditions,
      config: ran,
      timings: clock.timings(),
      results: [],
      ...early,
    };
    writeResults(dir, { ...fields, unchecked: unchecked.message });
    return { dir, history, ...fields };
  }
  const aimed = aimedFaults(
    resolved.faults.map((f) => f.spec),
    backend.capabilities?.inAcquirePausePoint,
  );
  const points = coverage(history, checked, done.reached, aimed, config.ttlMs);
  // A fault aimed at a point it never hit tested nothing there: valid would claim too much.
  const capped = cappedPointsResult(
    pool.pointsCapped.map((c) => c.client),
    MAX_PROGRAM_POINTS,
  );
  for (const r of capped) run.log(`note: ${r.summary}`);
  const results = [...checked, ...(programs.result ? [programs.result] : []), ...codePointsResult(points), ...capped];
  const valid = runVerdict(countedVerdict(results), conditions);
  const ranFor = clock.timings();
  writeResults(dir, { valid, conditions, config: ran, timings: ranFor, results, coverage: points, ...early });
  return { dir, config: ran, valid, results, conditions, history, timings: ranFor, coverage: points, ...early };
}
