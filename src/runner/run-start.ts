/**
 * A run's start, up to its workload: the workers forked, the cluster started, the faults'
 * proxies opened, the clients connected, a campaign's workload slot taken. Each resource
 * hands its end to the teardown as it begins. A Ctrl-C here leaves nothing to check, and
 * ends what the start waits on at once: a phase's own deadline would keep the user waiting.
 */
import { type Cluster, startCluster } from '../cluster/cluster.js';
import { STORE_KEY } from '../datastore/keys.js';
import { interrupted, RunInterrupted } from '../run-data/conditions.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import { writeResults } from '../run-data/run-folder.js';
import { targetNotes } from '../run-data/target.js';
import { startTargetCluster } from '../target/target-cluster.js';
import { untilAborted } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import type { ClientRun } from '../worker/protocol.js';
import { RunFaults } from './faults.js';
import type { ProgressStart } from './recording.js';
import type { RunContext } from './run-context.js';
import { WorkerPool } from './workers.js';

export const LOCK_NAME = 'lockchaos:lock';

/**
 * Ctrl-C before the workload began: nothing to check, but the folder says so (results.json
 * with the condition, no checks), so that `report` on it says interrupted, not killed.
 */
function interruptedAtStart(run: RunContext): RunInterrupted {
  const { config } = run.resolved;
  const condition = interrupted(run.signal?.reason, undefined, config.timeLimitS);
  writeResults(run.dir, {
    valid: 'unknown',
    conditions: [condition],
    config,
    timings: run.clock.timings(),
    results: [],
  });
  return new RunInterrupted(condition);
}

/** A wait of the start that Ctrl-C ends, as an interruption of the run. */
function interruptible(run: RunContext): (err: unknown) => never {
  return (err) => {
    if (run.signal?.aborted) throw interruptedAtStart(run);
    throw err;
  };
}

/**
 * The client workers, forked first: they load while the cluster starts, and connect once
 * given their addresses (connectClients).
 */
export function forkWorkers(run: RunContext): WorkerPool {
  const { config, workload } = run.resolved;
  const pool = new WorkerPool(run.runId, config.concurrency, run.recording.record);
  run.teardown.on('workers', () => pool.kill());
  const program = config.clientCommand;
  pool.preload(
    { backend: config.backendModule ?? config.backend, store: workload.usesStore, yieldCpu: run.besideWorkloads },
    program === undefined ? undefined : { command: program, cwd: config.clientDir },
  );
  return pool;
}

/**
 * The run's cluster, started; a campaign's cell (run.besideWorkloads) starts it ahead of
 * its workload slot, yielding the CPU until it has it (takeWorkloadSlot).
 */
export async function startRunCluster(run: RunContext): Promise<Cluster> {
  const { resolved, runId, log } = run;
  const { target } = resolved;
  if (target) {
    for (const note of targetNotes(resolved.backend.name, target.inventory)) log(note);
    const n = target.inventory.nodes.length;
    log(
      `connecting to the ${resolved.backend.name} target (${n} node${n === 1 ? '' : 's'}) and starting the data store (run ${runId})...`,
    );
  } else log(`starting ${resolved.backend.name} cluster (run ${runId})...`);
  // Ctrl-C while the nodes start (a ready() that never settles waits for nothing else).
  const cluster = await startNodes(resolved, runId, run.besideWorkloads, run.signal).catch(interruptible(run));
  run.clock.clusterReady();
  run.teardown.on('target', async () => {
    const left = await cluster
      .close?.()
      .catch((err) => [`the target of run ${runId} not let go: ${errorMessage(err)}`]);
    for (const line of left ?? []) {
      log(`not healed: ${line}`);
      run.notHealed.push(line);
    }
  });
  return cluster;
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
export async function openFaults(run: RunContext, cluster: Cluster): Promise<RunFaults> {
  const faults = new RunFaults(run.resolved, cluster, run.runId);
  run.teardown.on('heal', () => faults.healAll());
  run.teardown.on('faults', () => faults.close());
  await faults.openProxies(run.proxies);
  run.log(`cluster ready: ${cluster.nodes.map((n) => `${n.name} ${n.ip}`).join(', ')}`);
  if (run.signal?.aborted) throw interruptedAtStart(run);
  return faults;
}

/**
 * Every client given the run's parameters (not its schedule), what resolving found, and its
 * addresses, and connected: the time limit starts once they are, so all of it is workload.
 */
export async function connectClients(
  run: RunContext,
  pool: WorkerPool,
  faults: RunFaults,
  progress: ProgressStart | undefined,
): Promise<void> {
  run.clock.phases.enter('ready');
  const { config, backend, backendOptions } = run.resolved;
  const { schedule: _faults, ...parameters } = config;
  const clientRun: ClientRun = {
    config: parameters,
    backendOptions,
    backendName: backend.name,
    ...(backend.clientLogin ? { login: backend.clientLogin } : {}),
    lock: LOCK_NAME,
    storeKey: STORE_KEY,
  };
  run.recording.showProgress(progress);
  run.teardown.on('progress', () => run.recording.stopProgress());
  pool.start(
    Array.from({ length: config.concurrency }, (_, client) => ({
      client,
      ...faults.addressesFor(client),
      run: clientRun,
    })),
  );
  // Ctrl-C while the clients connect (a client that never connects waits for nothing else).
  await untilAborted(pool.ready(60_000), run.signal).catch((err) => {
    if (run.signal?.aborted) throw interruptedAtStart(run);
    // A client program broke at its start (workers.ts): how to try it alone.
    if (!(err instanceof UserError) || config.clientCommand === undefined) throw err;
    throw new UserError(
      `${err.message}: '${cliCommand} client-check --backend ${config.backend} -- ${config.clientCommand}' tries it alone`,
    );
  });
}

/**
 * A campaign's workload slot (RunHooks.workloadSlot), when the run is a campaign's cell;
 * once it has it, its cluster takes its full share of the CPU. Returns the slot's give-back
 * (the teardown's first step too; giving it back twice does nothing).
 */
export async function takeWorkloadSlot(
  run: RunContext,
  cluster: Cluster,
  slot: ((signal: AbortSignal | undefined) => Promise<() => void>) | undefined,
): Promise<() => void> {
  if (!slot) return () => {};
  run.clock.phases.enter('queued');
  run.log('waiting for a workload slot (other cells run theirs)...');
  const given = await slot(run.signal).catch(interruptible(run));
  let back = false;
  const release = () => {
    if (back) return;
    back = true;
    given();
  };
  run.teardown.on('slot', release);
  // Best effort: an engine that does not answer leaves the weight low, which the log says.
  await cluster.claimCpu?.().catch((err) => run.log(`cluster's CPU weight not raised: ${errorMessage(err)}`));
  return release;
}
