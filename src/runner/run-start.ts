/**
 * A run's start, up to its workload: the workers forked, the cluster started, the faults'
 * proxies opened, the clients connected, a campaign's workload slot taken. Each phase takes
 * what it uses; each resource hands its end to the teardown as it begins. A Ctrl-C here
 * leaves nothing to check (start-interruption.ts).
 */

import { type Cluster, startCluster } from '../cluster/cluster.js';
import { STORE_KEY } from '../datastore/keys.js';
import type { UnindexedOp } from '../history/recorder.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import type { RunClock } from '../run-data/run-phases.js';
import { targetNotes } from '../run-data/target.js';
import { startTargetCluster } from '../target/target-cluster.js';
import { untilAborted } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import type { ClientRun } from '../worker/protocol.js';
import { RunFaults } from './faults.js';
import type { ProgressStart, RunRecording } from './recording.js';
import type { StartInterruption } from './start-interruption.js';
import type { RunEnds } from './teardown.js';
import { WorkerPool } from './worker-pool.js';

export const LOCK_NAME = 'lockchaos:lock';

/**
 * The client workers, forked first: they load while the cluster starts, and connect once
 * given their addresses (connectClients). `yieldCpu`: a campaign's cell, its workload
 * beside other cells'.
 */
export function forkWorkers(
  { config, workload }: ResolvedRun,
  run: { runId: string; record: (op: UnindexedOp) => void; yieldCpu: boolean },
  teardown: RunEnds,
): WorkerPool {
  const pool = new WorkerPool(run.runId, config.concurrency, run.record);
  teardown.on('workers', () => pool.kill());
  const program = config.clientCommand;
  pool.preload(
    { backend: config.backendModule ?? config.backend, store: workload.usesStore, yieldCpu: run.yieldCpu },
    program === undefined ? undefined : { command: program, cwd: config.clientDir },
  );
  return pool;
}

/** A run's cluster, and what letting its target go could not heal (filled at the teardown), a line per node. */
export interface StartedCluster {
  cluster: Cluster;
  notHealed: string[];
}

/**
 * The run's cluster, started; a campaign's cell (`ahead`) starts it ahead of its workload
 * slot, yielding the CPU until it has it (takeWorkloadSlot).
 */
export async function startRunCluster(
  resolved: ResolvedRun,
  run: { runId: string; log: (line: string) => void; ahead: boolean },
  start: StartInterruption,
  teardown: RunEnds,
): Promise<StartedCluster> {
  const { runId, log } = run;
  const { target } = resolved;
  if (target) {
    for (const note of targetNotes(resolved.backend.name, target.inventory)) log(note);
    const n = target.inventory.nodes.length;
    log(
      `connecting to the ${resolved.backend.name} target (${n} node${n === 1 ? '' : 's'}) and starting the data store (run ${runId})...`,
    );
  } else log(`starting ${resolved.backend.name} cluster (run ${runId})...`);
  // Ctrl-C while the nodes start (a ready() that never settles waits for nothing else).
  const cluster = await startNodes(resolved, runId, run.ahead, start.signal).catch(start.rethrow);
  const notHealed: string[] = [];
  teardown.on('target', async () => {
    const left = await cluster
      .close?.()
      .catch((err) => [`the target of run ${runId} not let go: ${errorMessage(err)}`]);
    for (const line of left ?? []) {
      log(`not healed: ${line}`);
      notHealed.push(line);
    }
  });
  return { cluster, notHealed };
}

/** The run's nodes: started in containers, or a target's reached where they are with the store started beside them. */
function startNodes(resolved: ResolvedRun, runId: string, ahead: boolean, signal?: AbortSignal): Promise<Cluster> {
  const { target } = resolved;
  if (!target) return startCluster(runId, resolved.nodeSpecs, signal, ahead);
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

/** The faults of the run on its cluster, their proxies open: the cluster is then ready. */
export async function openFaults(
  resolved: ResolvedRun,
  cluster: Cluster,
  /** proxies: open the per-client proxies though no fault needs them (RunHooks.proxies). */
  run: { runId: string; log: (line: string) => void; proxies?: boolean },
  start: StartInterruption,
  teardown: RunEnds,
): Promise<RunFaults> {
  const faults = new RunFaults(resolved, cluster, run.runId);
  teardown.on('heal', () => faults.healAll());
  teardown.on('faults', () => faults.close());
  await faults.openProxies(run.proxies);
  run.log(`cluster ready: ${cluster.nodes.map((n) => `${n.name} ${n.ip}`).join(', ')}`);
  start.throwIfAborted();
  return faults;
}

/**
 * Every client given the run's parameters (not its schedule), what resolving found, and its
 * addresses, and connected: the time limit starts once they are, so all of it is workload.
 * The progress line shows from here (`progress`), on the run's `recording`.
 */
export async function connectClients(
  { config, backend, backendOptions }: ResolvedRun,
  clients: { pool: WorkerPool; faults: RunFaults },
  shown: { recording: RunRecording; progress: ProgressStart | undefined },
  start: StartInterruption,
  teardown: RunEnds,
): Promise<void> {
  const { pool, faults } = clients;
  const { schedule: _faults, ...parameters } = config;
  const clientRun: ClientRun = {
    config: parameters,
    backendOptions,
    backendName: backend.name,
    ...(backend.clientLogin ? { login: backend.clientLogin } : {}),
    lock: LOCK_NAME,
    storeKey: STORE_KEY,
  };
  shown.recording.showProgress(shown.progress);
  teardown.on('progress', () => shown.recording.stopProgress());
  pool.start(
    Array.from({ length: config.concurrency }, (_, client) => ({
      client,
      ...faults.addressesFor(client),
      run: clientRun,
    })),
  );
  // Ctrl-C while the clients connect (a client that never connects waits for nothing else).
  await untilAborted(pool.ready(60_000), start.signal).catch((err) => {
    start.throwIfAborted();
    // A client program broke at its start (worker-pool.ts): how to try it alone.
    if (!(err instanceof UserError) || config.clientCommand === undefined) throw err;
    throw new UserError(
      `${err.message}: '${cliCommand} client-check --backend ${config.backend} -- ${config.clientCommand}' tries it alone`,
    );
  });
}

/** A campaign's workload slot (RunHooks.workloadSlot): its give-back, once the slot is given. */
export type WorkloadSlot = (signal: AbortSignal | undefined) => Promise<() => void>;

/**
 * A campaign's workload slot, when the run is a campaign's cell (`slot`); the time waited is
 * the run's 'queued' phase. Once it has it, its cluster takes its full share of the CPU.
 * Returns the slot's give-back (the teardown's first step too; giving it back twice does
 * nothing).
 */
export async function takeWorkloadSlot(
  slot: WorkloadSlot | undefined,
  run: { cluster: Cluster; log: (line: string) => void; clock: RunClock },
  start: StartInterruption,
  teardown: RunEnds,
): Promise<() => void> {
  if (!slot) return () => {};
  run.clock.phases.enter('queued');
  run.log('waiting for a workload slot (other cells run theirs)...');
  const given = await slot(start.signal).catch(start.rethrow);
  let back = false;
  const release = () => {
    if (back) return;
    back = true;
    given();
  };
  teardown.on('slot', release);
  // Best effort: an engine that does not answer leaves the weight low, which the log says.
  await run.cluster.claimCpu?.().catch((err) => run.log(`cluster's CPU weight not raised: ${errorMessage(err)}`));
  return release;
}
