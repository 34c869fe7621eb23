/**
 * doctor's `client path` check: can this process reach a node on a run's network, and how.
 * It makes what a run makes (a labelled bridge network, a node container serving on it,
 * this process's container joined to it when inside one) and dials the node as a client
 * would; everything is removed at the end, and by any later sweep if doctor is killed.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';
import { clientPath, clientPathWords, reachNetwork } from '../cluster/client-path.js';
import { docker, NODE_IMAGE } from '../cluster/docker-engine.js';
import { runLabels } from '../cluster/labels.js';
import { removeResources } from '../cluster/remove-resources.js';
import { errorMessage } from '../util/errors.js';
import { sleep } from '../util/monotonic-clock.js';
import type { DoctorCheck } from './doctor-check.js';

const PORT = 6379;

/** Whether a TCP connection to ip:port opens within timeoutMs. */
function dial(ip: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: ip, port: PORT, timeout: timeoutMs });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

export async function clientPathCheck(): Promise<DoctorCheck> {
  const name = 'client path';
  const runId = randomBytes(4).toString('hex');
  const network = `lockchaos-${runId}`;
  try {
    const path = await clientPath();
    await docker().createNetwork({ Name: network, Driver: 'bridge', Labels: runLabels(runId, 'network') });
    await reachNetwork(network);
    const container = await docker().createContainer({
      Image: NODE_IMAGE,
      name: `lockchaos-${runId}-doctor-node`,
      Cmd: ['redis-server', '--port', String(PORT), '--protected-mode', 'no', '--save', ''],
      Labels: runLabels(runId, 'doctor'),
      HostConfig: { NetworkMode: network },
    });
    await container.start();
    const ip = (await container.inspect()).NetworkSettings.Networks[network]?.IPAddress ?? '';
    // A node of the node image answers within a second or two; a path that does not reach
    // it times out each dial, so the check gives up after a few seconds in all.
    for (const until = Date.now() + 8000; Date.now() < until; ) {
      if (await dial(ip, 1000))
        return { name, status: 'ok', detail: `${clientPathWords(path)} (dialed a node at ${ip}:${PORT})` };
      await sleep(100);
    }
    const fix =
      path.kind === 'direct'
        ? "this host cannot route to the engine's bridge networks (Docker Desktop, Colima, a remote engine): run lockchaos in a container on that engine with its socket mounted (docs/targets.md, 'Where lockchaos runs')"
        : 'check that the engine lets this container join networks';
    return {
      name,
      status: 'FAIL',
      detail: `${clientPathWords(path)}, but a node at ${ip}:${PORT} did not answer: ${fix}`,
    };
  } catch (err) {
    return {
      name,
      status: 'FAIL',
      detail: `could not make a run's network and node (${errorMessage(err).split('\n')[0]})`,
    };
  } finally {
    await removeResources({ runId }).catch(() => {});
  }
}
