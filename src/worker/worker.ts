/**
 * A client worker: a child process of the runner, so that the nemesis can really pause it
 * (SIGSTOP) like a GC pause would. It runs one workload loop and streams every operation,
 * stamped on the system-wide monotonic clock, to the runner.
 */
import { backendByName } from '../backends/index.js';
import { Recorder } from '../history/recorder.js';
import { DataStore } from '../store/datastore.js';
import { Rng } from '../util/rng.js';
import { workloadByName } from '../../workloads/index.js';
import type { FromWorker, ToWorker, WorkerConfig } from './protocol.js';

function send(message: FromWorker) {
  process.send?.(message);
}

const stop = new AbortController();

async function run(config: WorkerConfig) {
  const backend = backendByName(config.backend);
  const workload = workloadByName(config.workload);
  if (!backend || !workload) throw new Error(`unknown backend or workload: ${config.backend}/${config.workload}`);
  const rng = new Rng(config.seed).fork(`client-${config.client}`);
  const lock = await backend.client(config.nodes, {
    requestTimeoutMs: config.requestTimeoutMs,
    rng: rng.fork('backoff'),
    clientId: `c${config.client}`,
  });
  const store = await DataStore.connect(config.store.ip, config.requestTimeoutMs, config.store.port);
  const recorder = new Recorder(config.client, config.options.concurrency, BigInt(config.origin), (op) =>
    send({ type: 'op', op }),
  );
  try {
    await workload.client({
      client: config.client,
      lock,
      store,
      recorder,
      rng,
      opts: config.options,
      stop: stop.signal,
    });
  } finally {
    await lock.close();
    await store.close();
  }
}

process.on('message', (message: ToWorker) => {
  if (message.type === 'stop') stop.abort();
  if (message.type === 'start') {
    run(message.config).then(
      () => {
        send({ type: 'done' });
        process.disconnect?.();
      },
      (err) => {
        send({ type: 'error', message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
        process.disconnect?.();
      },
    );
  }
});
// The runner going away ends the worker (its IPC channel closes).
process.on('disconnect', () => stop.abort());
