/**
 * A client worker: a child process of the runner, so that the nemesis can really pause it
 * (SIGSTOP) like a GC pause would. It runs one workload loop and streams every operation,
 * stamped on the system-wide monotonic clock, to the runner.
 */

import { encodeExtension } from '../../checkers/op-values.js';
import { workloadByName } from '../../workloads/index.js';
import type { LockClient } from '../backends/backend.js';
import type { Extension } from '../backends/client-protocol.js';
import { importBackend } from '../backends/import.js';
import type { ProcessLockClient, ProgramLaunch } from '../backends/process-client.js';
import { clientCgroupName, WORKER_ENV } from '../cluster/labels.js';
import type { DataStore } from '../datastore/datastore.js';
import { Recorder, type UnindexedOp } from '../history/recorder.js';
import { cgroupPath, cgroupPids } from '../util/cgroup.js';
import { keepTrying } from '../util/deadline.js';
import { errorStack } from '../util/errors.js';
import { monotonicNow, NS_PER_MS } from '../util/monotonic-clock.js';
import { groupMembers } from '../util/process-group.js';
import { Rng } from '../util/rng.js';
import { mayRegainCpu, regainCpu, regainCpuOf, yieldCpu } from '../util/yield-cpu.js';
import type { FromWorker, ToWorker, WorkerConfig } from './protocol.js';

/**
 * Operations go to the runner in batches, one IPC message every few milliseconds: a
 * message per operation costs more than the request it records.
 */
let batch: UnindexedOp[] = [];
/** At most this late to the runner (the nemesis follows who holds the lock from these). */
const FLUSH_MS = 2;
function flushOps() {
  if (pointsChanged) {
    pointsChanged = false;
    toRunner({ type: 'points', reached: Object.fromEntries(reached) });
  }
  if (batch.length === 0) return;
  toRunner({ type: 'ops', ops: batch });
  batch = [];
}

/** How often this client reached each code point (coverage); sent with the next batch. */
const reached = new Map<string, number>();
let pointsChanged = false;

/**
 * A message to the runner, unless it is gone (killed with -9: the channel closed). Sent
 * then, it was an ERR_IPC_CHANNEL_CLOSED stack per worker on the user's terminal.
 */
function toRunner(message: FromWorker): void {
  if (process.connected) process.send?.(message);
}
function recordOp(op: UnindexedOp) {
  if (batch.length === 0) setTimeout(flushOps, FLUSH_MS);
  batch.push(op);
}

/** Every other message goes after the operations recorded before it. */
function send(message: FromWorker) {
  flushOps();
  toRunner(message);
}

/**
 * The last operations, then the channel closed: only once the runner has them, since a
 * channel closed with a write still queued (a busy runner, a full pipe) drops it, and the
 * client's last release with it.
 */
function flushAndDisconnect(last: FromWorker = { type: 'ops', ops: [] }) {
  if (!process.connected) return;
  flushOps();
  // Writes on one channel complete in order: the last one's callback means all are out.
  process.send?.(last, () => process.disconnect?.());
}

const stop = new AbortController();

/**
 * The client's own clock, as the lock algorithm reads it (ClientOptions.clock): monotonic
 * time plus the steps the client-clock fault made, as NTP stepping a wall clock would.
 */
let clockOffsetNs = 0n;
const clientClock = () => monotonicNow() + clockOffsetNs;

/** Resolves with the test's origin when the runner says go (all clients connected). */
let startWorkload: (origin: bigint) => void = () => {};
const go = new Promise<bigint>((resolve) => {
  startWorkload = resolve;
});

/** Code points a fault is aimed at: the runner is asked there (client-pause:at=...). */
const askAt = new Set<string>();
let pointSeq = 0;
const pointWaits = new Map<number, () => void>();

/**
 * The client is at a code point (the workload's standard ones, a backend's, a client
 * program's own): counted, and where a fault is aimed at it, the runner decides (it stops
 * this process and the program, and says go when the fault ends).
 */
async function atPoint(where: string): Promise<void> {
  reached.set(where, (reached.get(where) ?? 0) + 1);
  pointsChanged = true;
  if (batch.length === 0) setTimeout(flushOps, FLUSH_MS);
  if (askAt.has(where) && process.connected) {
    const seq = ++pointSeq;
    await new Promise<void>((resolve) => {
      pointWaits.set(seq, resolve);
      send({ type: 'at-point', where, seq });
    });
  }
}

/** The workload's recorder and lock, once it began: a client program's extensions are recorded there. */
let recording: { recorder: Recorder; lock: string } | undefined;

/**
 * The program's library extended its lease on its own, or failed to: an `extend` on the
 * history (its new validity, else the run's TTL; or the library's error), which the
 * checkers date the lease from (checkers/lease.ts).
 */
function recordExtension(extension: Extension, ttlMs: number): void {
  if (!recording) return;
  const { recorder, lock } = recording;
  recorder.event(
    'extend',
    lock,
    extension.extended
      ? { type: 'ok', value: encodeExtension(extension.validityMs ?? ttlMs) }
      : { type: 'fail', error: extension.error },
  );
}

/** The name of this client's program cgroup: a replacement's is its own (runner/worker-pool.ts replace). */
const cgroupClientName = (w: { client: number; firstProcess?: number }) =>
  w.firstProcess === undefined ? `c${w.client}` : `c${w.client}-p${w.firstProcess}`;

/**
 * How long a worker may take to connect its lock client and the store, trying again: on a
 * loaded machine a first connect can time out (seen at load 24 on redis and on postgres:
 * the worker failed before its first request, and so did the run). Nothing is recorded
 * before every worker is ready, so this is no retry of a request. A failed attempt's
 * connections are the backend's to close (a Redlock client closes the masters it reached).
 */
const SETUP_PATIENCE_MS = 20_000;

async function run(worker: WorkerConfig) {
  const { config, lock: lockName, storeKey } = worker.run;
  const workload = workloadByName(config.workload);
  if (!workload) throw new Error(`unknown workload: ${config.workload}`);
  const rng = new Rng(config.seed).fork(`client-${worker.client}`);
  // A client program is not tried again: one that cannot start is broken, as client-check says.
  const lock = config.clientCommand
    ? await startProgram(worker, config.clientCommand)
    : await keepTrying(SETUP_PATIENCE_MS, () => backendClient(worker, rng), { signal: stop.signal });
  // Loaded only when used: the store's client library is most of a worker's start.
  let store: DataStore | undefined;
  if (workload.usesStore) {
    const { DataStore } = await import('../datastore/datastore.js');
    store = await keepTrying(
      SETUP_PATIENCE_MS,
      () => DataStore.connect(worker.store.ip, config.requestTimeoutMs, worker.store.port),
      { signal: stop.signal },
    );
  }
  send({ type: 'ready' });
  const origin = await go;
  const recorder = new Recorder(worker.firstProcess ?? worker.client, config.concurrency, origin, recordOp);
  recording = { recorder, lock: lockName };
  const stalls = watchStalls(origin);
  try {
    await workload.client({
      client: worker.client,
      lock,
      store,
      recorder,
      rng,
      opts: { ...config, lock: lockName, storeKey },
      stop: stop.signal,
      point: atPoint,
    });
  } finally {
    clearInterval(stalls);
    await lock.close();
    await store?.close();
  }
}

/** How often the worker looks at its clock, and the gap between looks that is a stall. */
const STALL_TICK_MS = 50;
const STALL_MS = 250;

/**
 * Tells the runner of each time this worker did not run for STALL_MS or more: the nemesis
 * stopped it (the runner knows its faults), or the machine did not schedule it. A holder
 * stalled past its lease by nobody's fault is the harness's overlap (runner/machine-stalls.ts).
 */
function watchStalls(origin: bigint): NodeJS.Timeout {
  let last = monotonicNow();
  const tick = setInterval(() => {
    const now = monotonicNow();
    if (Number(now - last) / 1e6 >= STALL_MS) {
      send({ type: 'stall', fromNs: Number(last - origin), toNs: Number(now - origin) });
    }
    last = now;
  }, STALL_TICK_MS);
  tick.unref();
  return tick;
}

/** The backend's own client (TypeScript), with the pause points and the clock the faults use. */
async function backendClient(worker: WorkerConfig, rng: Rng): Promise<LockClient> {
  const { config, backendOptions } = worker.run;
  const path = config.backendModule ?? config.backend;
  const backend = await importBackend(path);
  if (!backend) throw new Error(`unknown backend: ${path}`);
  return backend.client(worker.nodes, {
    ...config,
    rng: rng.fork('backoff'),
    clientId: `c${worker.client}`,
    pausePoint: atPoint,
    clock: clientClock,
    backend: backendOptions,
  });
}

/**
 * A client program (the client protocol): started as this worker's child, so that a client
 * pause stops both. When it breaks (crash, hang, garbage) the request it had ends unknown,
 * the runner is told in one line, and the loop ends: the run is not as configured.
 */
async function startProgram(worker: WorkerConfig, command: string): Promise<LockClient> {
  const { ProcessLockClient, programTimes, DEFAULT_RELEASE_TIMEOUT_MS } = await import('../backends/process-client.js');
  const { config, backendName, backendOptions, login } = worker.run;
  const launch = { command, cwd: config.clientDir, cgroup: programCgroup(worker) };
  const client = (await startedAhead(launch)) ?? launchNow(ProcessLockClient, launch);
  await client.handshake({
    requestTimeoutMs: config.requestTimeoutMs,
    init: {
      client: `c${worker.client}`,
      backend: backendName,
      nodes: worker.nodes.map((n) => ({ name: n.name, host: n.ip, port: n.port ?? 0 })),
      options: backendOptions.settings ?? {},
      ...programTimes(config),
      ...(login ? { login } : {}),
    },
    releaseTimeoutMs: config.releaseTimeoutMs ?? DEFAULT_RELEASE_TIMEOUT_MS,
    onPoint: atPoint,
    aimedAt: (point) => askAt.has(point),
    onPointsCapped: (cap) => send({ type: 'points-capped', cap }),
    onExtension: (extension) => recordExtension(extension, config.ttlMs),
    onBroken: (why) => {
      send({ type: 'program-broken', why });
      stop.abort();
    },
  });
  return client;
}

/** Its cgroup's name, by the run and its runner (WORKER_ENV), so that the runner and the sweep find it. */
function programCgroup(worker: { client: number; firstProcess?: number }): string | undefined {
  const [runId, owner] = (process.env[WORKER_ENV] ?? '').split('@');
  return runId && owner ? clientCgroupName(runId, cgroupClientName(worker), owner) : undefined;
}

/** The client program started at the preload (launchAhead), its priority given back. */
let ahead: Promise<{ client: ProcessLockClient; launch: ProgramLaunch; yielded?: number } | undefined> =
  Promise.resolve(undefined);

/**
 * The program started ahead, when it was started as this client's is: the same command,
 * folder and cgroup (a replacement's cgroup is its own); one that differs is closed.
 */
async function startedAhead(launch: ProgramLaunch): Promise<ProcessLockClient | undefined> {
  const started = await ahead;
  ahead = Promise.resolve(undefined);
  if (!started) return undefined;
  const same = (['command', 'cwd', 'cgroup'] as const).every((k) => started.launch[k] === launch[k]);
  if (!same) {
    await started.client.close();
    return undefined;
  }
  // Started while this worker yielded: the program's processes and threads took the yielded
  // priority with them. Its cgroup holds them all (cheap to read); else its process group.
  const group = started.client.pid;
  if (started.yielded !== undefined && group !== undefined) {
    const cgroup = launch.cgroup === undefined ? undefined : cgroupPath(launch.cgroup);
    const pids = cgroup === undefined ? groupMembers(-group).map((m) => m.pid) : cgroupPids(cgroup);
    regainCpuOf(pids, started.yielded);
  }
  return started.client;
}

/** Starts the program and tells the runner its process group, so that a run that ends early kills it too. */
function launchNow(
  ProcessLockClient: typeof import('../backends/process-client.js').ProcessLockClient,
  launch: ProgramLaunch,
): ProcessLockClient {
  const started = ProcessLockClient.launch(launch);
  if (started.pid !== undefined) send({ type: 'program-started', pid: started.pid });
  return started;
}

/**
 * Starts the client program now, to be given its init at 'start': its interpreter and
 * imports overlap the cluster's start (and, a campaign's cell started ahead, other cells'
 * workloads, at the yielded priority) rather than the workload slot. The runner hears of
 * its pid at once, so that a run that ends before its workload kills it too.
 */
function launchAhead({ command, cwd, client }: { command: string; cwd?: string; client: number }): void {
  ahead = import('../backends/process-client.js').then(
    ({ ProcessLockClient }) => {
      const launch = { command, cwd, cgroup: programCgroup({ client }) };
      return { client: launchNow(ProcessLockClient, launch), launch, yielded: yieldedFrom };
    },
    () => undefined,
  );
}

/** The priority this worker had before it yielded for its preload; taken back at 'start'. */
let yieldedFrom: number | undefined;

/**
 * Loads what `start` will import (the cache keeps it), ignoring failures: the same import
 * at the start fails again and says why there. Beside other runs' workloads it loads at a
 * lower priority, when it may take the priority back (util/yield-cpu.ts).
 */
function preload({ backend, store, yieldCpu: beside, launch }: Extract<ToWorker, { type: 'preload' }>): void {
  if (beside && mayRegainCpu()) yieldedFrom = yieldCpu();
  const ignore = () => {};
  if (launch) launchAhead(launch);
  else importBackend(backend).catch(ignore);
  if (store) import('../datastore/datastore.js').catch(ignore);
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'preload') preload(message);
  if (message.type === 'go') startWorkload(BigInt(message.origin));
  if (message.type === 'stop') {
    stop.abort();
    startWorkload(0n); // stopped before it began: the workload loop ends at once
  }
  if (message.type === 'stop-now') {
    stop.abort();
    // Everything recorded goes first; the channel's close is the runner's sign.
    if (!process.connected) process.exit(0);
    flushOps();
    process.send?.({ type: 'ops', ops: [] } satisfies FromWorker, () => process.exit(0));
  }
  if (message.type === 'arm-point') askAt.add(message.where);
  if (message.type === 'disarm-point') askAt.delete(message.where);
  if (message.type === 'point-go') {
    // Stopped until now: the clock stepped while it was (client-clock), before the client reads it.
    clockOffsetNs += BigInt(Math.round((message.clockStepMs ?? 0) * NS_PER_MS));
    pointWaits.get(message.seq)?.();
    pointWaits.delete(message.seq);
  }
  if (message.type === 'start') {
    // Its cell's cluster is ready: it connects at its own priority (a brief burst; one
    // starved at the yielded priority could outlast the setup's patience), then idles until go.
    if (yieldedFrom !== undefined) regainCpu(yieldedFrom);
    run(message.config).then(
      // The last operations go before the channel closes; the runner knows the worker is
      // done when its process exits.
      () => flushAndDisconnect(),
      (err) => flushAndDisconnect({ type: 'error', message: errorStack(err) }),
    );
  }
});
// A hangup is the runner's to act on (a terminal closed under a run started in the
// background hangs up its whole group): a worker ends with its runner, through the channel.
process.on('SIGHUP', () => {});
// Ctrl-C in a terminal goes to the whole foreground group, this worker included: it is the
// runner's to act on (its clients flush and stop, through the channel). Ended by it, every
// worker was lost, and the interrupted run listed a condition per worker.
process.on('SIGINT', () => {});
// The runner going away ends the worker (its IPC channel closes).
process.on('disconnect', () => {
  stop.abort();
  // No runner to say go: nothing waits at a point for good.
  for (const go of pointWaits.values()) go();
  pointWaits.clear();
});
