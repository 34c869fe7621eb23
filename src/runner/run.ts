/**
 * One test run, start to verdict: start the cluster, fork the clients, run the nemesis for
 * the time limit, heal, make the final read, tear down, check the history, write the run
 * folder. Every container and network is removed in `finally`, also on abort (Ctrl-C).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { aimedFaults, codePointsResult, coverage } from '../../checkers/coverage.js';
import { faultWindows } from '../../checkers/fault-windows.js';
import { LiveOverlaps } from '../../checkers/live-overlaps.js';
import { LiveViolations } from '../../checkers/live-violations.js';
import { countedVerdict } from '../../checkers/result.js';
import { CHECK_INTERRUPTED, interruptibleCheckRun } from '../../workloads/checks.js';
import { clientProgramName } from '../backends/client-protocol.js';
import { type Cluster, startCluster } from '../cluster/cluster.js';
import { ensureEngine, ensureImage } from '../cluster/docker-engine.js';
import { removeResources } from '../cluster/labels.js';
import { reclaimOrphans, removeRunCgroups } from '../cluster/reclaim.js';
import { DATASTORE_NODE, DataStore } from '../datastore/datastore.js';
import { STORE_KEY } from '../datastore/keys.js';
import { DefiniteFailure } from '../history/definite-failure.js';
import type { Op } from '../history/op.js';
import { Recorder } from '../history/recorder.js';
import { HistoryWriter } from '../history/writer.js';
import type { ScheduledFault } from '../nemesis/schedule.js';
import {
  badGrants,
  checkInterrupted,
  cycleLeftOpen,
  healCounted,
  interrupted,
  overrun,
  type RunCondition,
  RunInterrupted,
  runVerdict,
  workerLost,
} from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import {
  createRunFolder,
  nodeLogFile,
  type RunResult,
  type RunTimings,
  runFile,
  type StoppedEarly,
  writeResults,
  writeTestJson,
} from '../run-data/run-folder.js';
import { PhaseTimer } from '../run-data/run-phases.js';
import { reclaimTargets } from '../target/heal.js';
import { startTargetCluster } from '../target/target-cluster.js';
import { untilAborted } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';
import { storageError } from '../util/fs-errors.js';
import { monotonicNow, type Origin, sleep } from '../util/monotonic-clock.js';
import { cliCommand } from '../util/paths.js';
import { plural } from '../util/plural.js';
import { Rng } from '../util/rng.js';
import type { ClientRun } from '../worker/protocol.js';
import { RunFaults } from './faults.js';
import { imagesOf } from './images.js';
import { NodeWatch } from './node-watch.js';
import { classifyBrokenPrograms } from './program-failures.js';
import { WorkerPool } from './workers.js';

/** "1 container", "2 containers". */

export const LOCK_NAME = 'lockchaos:lock';

export type { RunResult, StoppedEarly };

export interface RunHooks {
  log?: (line: string) => void;
  /** Aborting ends the workload early; the run still heals, tears down and checks. */
  signal?: AbortSignal;
  /**
   * Live progress while the workload runs: called once the clients are connected, with
   * the run's one overlap count; the observer sees every op as it is recorded. The runner
   * only runs: progress lines and report.html are its callers' (report/reported-run.ts).
   */
  progress?: (run: { timeLimitS: number; fencing: boolean; overlaps: LiveOverlaps }) => RunObserver;
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
   * A campaign's limit on workloads at once: taken once the cluster is ready, before the
   * clients connect, and given back (the function it resolves to) once the workload and
   * its final read are over, before teardown and checking. So the next cells' clusters
   * start, and the last ones' tear down and check, while these run. Rejects when the
   * signal is aborted while waiting.
   */
  workloadSlot?: (signal: AbortSignal | undefined) => Promise<() => void>;
}

/** What watches a run's ops as they are recorded (the progress line). */
export interface RunObserver {
  onOp(op: Op): void;
  /** Every client has stopped: the closing line. */
  finish(): void;
  /** Stop without a closing line (the run failed, or finish() was called). */
  stop(): void;
}

/** A resolved run (prepare.ts, resolve.ts), from the cluster's start to its verdict. */
export async function run(resolved: ResolvedRun, hooks: RunHooks = {}): Promise<RunResult> {
  try {
    return await runToVerdict(resolved, hooks);
  } catch (err) {
    throw storageError(err) ?? err;
  }
}

async function runToVerdict(resolved: ResolvedRun, hooks: RunHooks): Promise<RunResult> {
  const { backend, workload, config } = resolved;
  const log = hooks.log ?? (() => {});
  const t0 = Date.now();
  const phases = new PhaseTimer(t0);
  const timings = (): RunTimings => {
    phases.stop();
    return { totalS: (Date.now() - t0) / 1000, clusterS, phases: phases.seconds };
  };
  /** The campaign's workload slot, while this run holds it. */
  let releaseSlot: (() => void) | undefined;

  await ensureEngine();
  const swept = await reclaimOrphans();
  if (swept.containers.length + swept.networks.length + swept.workers + swept.cgroups > 0) {
    log(
      `removed what crashed runs left: ${plural(swept.containers.length, 'container')}, ${plural(swept.networks.length, 'network')}, ${plural(swept.workers, 'worker')}, ${plural(swept.cgroups, 'client program cgroup')}`,
    );
  }
  const healed = await reclaimTargets();
  if (healed.runs > 0) log(`healed what crashed runs left on their targets: ${plural(healed.runs, 'run')}`);
  for (const problem of healed.problems) log(`a crashed run's target is not healed yet: ${problem}`);
  await ensureImage({ build: hooks.buildImage ?? true, log, ...imagesOf(resolved.nodeSpecs, config.backendModule) });

  const dir = createRunFolder(config.storeDir, config.name, hooks.latest !== false);
  writeTestJson(dir, config);

  const runId = randomBytes(4).toString('hex');
  const writer = new HistoryWriter(runFile(dir, 'history'));
  const rng = new Rng(config.seed);
  let cluster: Cluster | undefined;
  let pool: WorkerPool | undefined;
  let faults: RunFaults | undefined;
  let clusterS = 0;
  let progress: RunObserver | undefined;
  const conditions: RunCondition[] = [];
  // Stops the workload early: time is up, Ctrl-C, the history can no longer be written, or
  // (--stop-on-violation) the first violation a checker will count.
  const timeUp = new AbortController();
  let stoppedEarly: StoppedEarly | undefined;
  /** The faults applied, once healed. */
  let applied: ScheduledFault[] | undefined;
  let reached: Record<string, number> = {};
  // The live overlap count of the progress line, and --stop-on-violation's watch for the
  // first violation a checker will count (checkers/live-violations.ts).
  const overlaps = hooks.progress ? new LiveOverlaps() : undefined;
  const live = config.stopOnViolation
    ? new LiveViolations({
        fenced: config.fencing,
        storeKey: workload.usesStore ? STORE_KEY : undefined,
        historySoFar: () => writer.ops,
        overlaps,
      })
    : undefined;
  let origin: Origin | undefined;
  /** A fault's stop failed (recorded as info): what it waited on did not come back. */
  let stopFailed = false;
  /**
   * Ctrl-C before the workload began: nothing to check, but the folder says so (results.json
   * with the condition, no checks), so that `report` on it says interrupted, not killed.
   */
  const interruptedAtStart = () => {
    const condition = interrupted(hooks.signal?.reason, undefined, config.timeLimitS);
    writeResults(dir, { valid: 'unknown', conditions: [condition], config, timings: timings(), results: [] });
    return new RunInterrupted(condition);
  };
  const record = (op: Parameters<HistoryWriter['append']>[0]) => {
    if (op.process === 'nemesis' && op.type === 'info' && op.f.startsWith('stop-')) stopFailed = true;
    const indexed = writer.append(op);
    if (writer.error) timeUp.abort(); // the disk is full: stop, heal, tear down
    // One overlap count per op: the violations' watch feeds the progress line's when it runs.
    if (live) live.onOp(indexed);
    else overlaps?.onOp(indexed);
    if (live?.first !== undefined && !stoppedEarly && origin !== undefined && !timeUp.signal.aborted) {
      stoppedEarly = { atS: Math.round(Number(monotonicNow() - origin) / 1e7) / 100, why: live.first };
      timeUp.abort();
    }
    progress?.onOp(indexed);
    return indexed;
  };
  try {
    // The client workers load while the cluster starts; they connect once given their
    // addresses (pool.start below).
    pool = new WorkerPool(runId, config.concurrency, record);
    log(`starting ${backend.name} cluster (run ${runId})...`);
    try {
      cluster = await startNodes(resolved, runId, hooks.signal);
    } catch (err) {
      // Ctrl-C while the nodes started (a ready() that never settles waits for nothing else).
      if (hooks.signal?.aborted) throw interruptedAtStart();
      throw err;
    }
    clusterS = (Date.now() - t0) / 1000;
    const runFaults = new RunFaults(resolved, cluster, runId);
    faults = runFaults;
    await runFaults.openProxies();
    log(`cluster ready: ${cluster.nodes.map((n) => `${n.name} ${n.ip}`).join(', ')}`);
    if (hooks.signal?.aborted) throw interruptedAtStart();
    if (hooks.workloadSlot) {
      phases.enter('queued');
      log('waiting for a workload slot (other cells run theirs)...');
      releaseSlot = await hooks.workloadSlot(hooks.signal).catch((err) => {
        if (hooks.signal?.aborted) throw interruptedAtStart();
        throw err;
      });
    }
    phases.enter('ready');

    // What every client is given: the run's parameters (not its schedule) and what resolving found.
    const { schedule: _faults, ...parameters } = config;
    const clientRun: ClientRun = {
      config: parameters,
      backendOptions: resolved.backendOptions,
      backendName: backend.name,
      lock: LOCK_NAME,
      storeKey: STORE_KEY,
    };
    progress =
      hooks.progress && overlaps
        ? hooks.progress({ timeLimitS: config.timeLimitS, fencing: config.fencing, overlaps })
        : undefined;
    pool.start(
      Array.from({ length: config.concurrency }, (_, client) => ({
        client,
        ...runFaults.addressesFor(client),
        run: clientRun,
      })),
    );
    // Time starts when every client is connected, so the whole time limit is workload.
    // Ctrl-C while the clients connect (a client that never connects waits for nothing else).
    await untilAborted(pool.ready(60_000), hooks.signal).catch((err) => {
      if (hooks.signal?.aborted) throw interruptedAtStart();
      // A client program broke at its start (workers.ts): how to try it alone.
      if (!(err instanceof UserError) || config.clientCommand === undefined) throw err;
      throw new UserError(
        `${err.message}: '${cliCommand} client-check --backend ${config.backend} -- ${config.clientCommand}' tries it alone`,
      );
    });
    const watch = await NodeWatch.begin(cluster.nodes.filter((n) => n.role === 'node'));
    phases.enter('workload');
    origin = monotonicNow();
    pool.go(origin);

    const onAbort = () => timeUp.abort();
    hooks.signal?.addEventListener('abort', onAbort, { once: true });
    if (hooks.signal?.aborted) timeUp.abort(); // aborted while the clients were connecting
    const schedule = runFaults.run({ clients: pool, rng, origin, record, signal: timeUp.signal });
    log(
      `running ${config.workload} with ${config.concurrency} clients, nemesis ${config.nemesis}, for ${config.timeLimitS} s (seed ${config.seed})`,
    );
    await sleep(config.timeLimitS * 1000, timeUp.signal);
    // The workload's own time: the time limit as the timers kept it, and the clients'
    // stop below; healing (a node restart, an etcd member replaced) is not counted.
    const limitS = Number(monotonicNow() - origin) / 1e9;
    if (hooks.signal?.aborted) {
      conditions.push(interrupted(hooks.signal.reason, Number(monotonicNow() - origin) / 1e9, config.timeLimitS));
    }
    timeUp.abort();
    hooks.signal?.removeEventListener('abort', onAbort);
    await schedule;
    await runFaults.healAll();
    const heal = healCounted(Number(monotonicNow() - origin) / 1e9 - limitS, stopFailed);
    // The faults, as data: a replay of this run (or a shrink of it) applies these.
    applied = runFaults.schedule();
    log(
      stoppedEarly
        ? `stopped early at ${stoppedEarly.atS} s (--stop-on-violation: ${stoppedEarly.why}): faults healed, clients finishing`
        : 'time is up: faults healed, clients finishing',
    );
    const graceMs = hooks.stopGraceMs ?? config.acquireTimeoutMs + 3 * config.requestTimeoutMs + config.holdMs + 2000;
    const stopping = monotonicNow();
    // Ctrl-C while the clients finish their cycles: those not done are killed at once.
    await pool.stop(graceMs, hooks.signal);
    // How often the clients reached each code point, and each request on the wire: coverage.
    reached = { ...pool.pointsReached(), ...runFaults.wireReached() };
    const workloadS = limitS + heal.s + Number(monotonicNow() - stopping) / 1e9;
    const over = overrun(workloadS, config.timeLimitS, graceMs / 1000, heal.cause);
    if (over) conditions.push(over);
    for (const lost of pool.lost) conditions.push(workerLost(lost));
    for (const client of pool.exitedOpen) conditions.push(cycleLeftOpen(client));
    conditions.push(...(await watch.lost(applied)));
    progress?.finish(); // after "time is up": every client's last op is in the count

    if (workload.usesStore && !writer.error) {
      const lost = await finalRead(cluster, config, new Recorder(pool.maxProcess() + 1, 1, origin, record));
      if (lost) conditions.push(lost);
    }
    try {
      const logs = await cluster.collectLogs();
      for (const [name, text] of Object.entries(logs)) writeFileSync(nodeLogFile(dir, name), text);
    } catch (err) {
      const stored = storageError(err);
      if (stored) throw stored;
      log(`node logs not collected: ${errorMessage(err).split('\n')[0]}`);
    }
  } finally {
    phases.enter('teardown');
    progress?.stop();
    await faults?.healAll();
    // Healed: the next cell's workload may begin while this one tears down and checks.
    releaseSlot?.();
    pool?.kill();
    // What the client programs started (a daemon that left their process group) ends with
    // the run, also when a worker was killed before it could close its program.
    await removeRunCgroups(runId).catch((err) =>
      log(`client program cgroups of run ${runId} not removed: ${String(err)}`),
    );
    await faults?.close();
    await cluster?.close?.().catch((err) => log(`the target of run ${runId} not let go: ${errorMessage(err)}`));
    await removeResources({ runId }).catch((err) => log(`cleanup of run ${runId} failed: ${String(err)}`));
    phases.enter('check');
  }
  if (writer.error) {
    const stored = storageError(writer.error, writer.path);
    throw stored ?? writer.error;
  }
  const history = writer.finish();
  const refused = badGrants(history, backend.name);
  if (refused) conditions.push(refused);
  // A program that broke under a fault is the library's failure (a counted result); one
  // with no fault near, a condition (program-failures.ts).
  const programs = classifyBrokenPrograms(pool?.brokenPrograms ?? [], faultWindows(history), {
    ttlMs: config.ttlMs,
    command: clientProgramName(config.clientCommand ?? ''),
  });
  conditions.push(...programs.conditions);
  if (pool?.errors.length) throw new Error(`client workers failed:\n${pool.errors.join('\n')}`);

  // test.json again, now with the faults the run applied: its schedule, as data.
  const recorded = { storeKey: STORE_KEY, schedule: applied };
  writeTestJson(dir, config, recorded);
  // The configuration to run it again, as a stored run reads back (run-folder.ts rerunConfig).
  const ran: TestConfig = applied ? { ...config, schedule: applied } : config;
  // On a thread that Ctrl-C ends (a long search must not hold the run hostage); a run whose
  // workload was interrupted has had its Ctrl-C: a second one during checking quits at once.
  // One that came after the workload (the clients' stop, the teardown) ends the checking:
  // the history is complete, and `report` checks it.
  const workloadInterrupted = conditions.some((c) => c.kind === 'interrupted');
  const checkSignal = workloadInterrupted ? new AbortController().signal : hooks.signal;
  const checked = await interruptibleCheckRun(history, config, { storeKey: STORE_KEY }, checkSignal);
  const early = stoppedEarly ? { stoppedEarly } : {};
  if (checked === CHECK_INTERRUPTED) {
    // The workload ran and is recorded in full: only the verdict is missing, and the
    // report command gives it (it checks a folder whose results say unchecked).
    const unchecked = checkInterrupted(hooks.signal?.reason, dir);
    conditions.push(unchecked);
    const fields = { valid: 'unknown' as const, conditions, config: ran, timings: timings(), results: [], ...early };
    writeResults(dir, { ...fields, unchecked: unchecked.message });
    return { dir, history, ...fields };
  }
  const aimed = aimedFaults(
    resolved.faults.map((f) => f.spec),
    backend.capabilities?.inAcquirePausePoint,
  );
  const points = coverage(history, checked, reached, aimed, config.ttlMs);
  // A fault aimed at a point it never hit tested nothing there: valid would claim too much.
  const results = [...checked, ...(programs.result ? [programs.result] : []), ...codePointsResult(points)];
  const valid = runVerdict(countedVerdict(results), conditions);
  const ranFor = timings();
  writeResults(dir, { valid, conditions, config: ran, timings: ranFor, results, coverage: points, ...early });
  return { dir, config: ran, valid, results, conditions, history, timings: ranFor, coverage: points, ...early };
}

/** The run's nodes: started in containers, or a target's reached where they are with the store started beside them. */
function startNodes(resolved: ResolvedRun, runId: string, signal?: AbortSignal): Promise<Cluster> {
  const { target } = resolved;
  if (!target) return startCluster(runId, resolved.nodeSpecs, signal);
  const store = resolved.nodeSpecs.find((s) => s.role === 'store');
  if (!store) throw new Error('a run has a data store');
  return startTargetCluster({
    runId,
    inventory: target.inventory,
    ready: target.ready,
    store,
    needs: target.needs,
    signal,
  });
}

/**
 * The runner's read of the store after the faults healed. The store is not the system
 * under test: when it does not answer, the run lost its witness, which is a condition of
 * the run (lost updates then cannot be judged), not a crash.
 */
async function finalRead(cluster: Cluster, config: TestConfig, recorder: Recorder): Promise<RunCondition | undefined> {
  let store: DataStore | undefined;
  try {
    // On the record whatever happens, a store that cannot be reached too (a read that
    // certainly did not happen): lost-updates judges the last read of the store, so a read
    // made during the run is never taken for the final one.
    const outcome = await recorder.perform('read', STORE_KEY, undefined, async () => {
      try {
        store = await DataStore.connect(cluster.node(DATASTORE_NODE).ip, config.requestTimeoutMs * 5);
      } catch (err) {
        throw new DefiniteFailure(`cannot connect: ${errorMessage(err).split('\n')[0]}`);
      }
      const r = await store.read(STORE_KEY);
      return r.ok ? { type: 'ok', value: r.value } : { type: 'fail', error: 'rejected' };
    });
    if (outcome.type !== 'ok') {
      return { kind: 'store-lost', message: `the data store did not answer the final read (${outcome.error})` };
    }
    return undefined;
  } finally {
    await store?.close().catch(() => {});
  }
}
