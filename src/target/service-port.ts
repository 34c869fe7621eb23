/**
 * Whether a target's service answers where the inventory says, checked from this machine
 * (where the clients dial it) before the backend's readiness wait: a wrong port or address
 * is said at once, as one line naming the node, its address and port, and the inventory key
 * that gave the port, not as a readiness wait that gives up a minute later.
 */
import { connect } from 'node:net';
import { UserError } from '../util/errors.js';
import { sleep } from '../util/monotonic-clock.js';
import type { TargetNode } from './inventory.js';

/** How long a node's port may refuse connections (a service still starting) before it is given up. */
const PORT_WAIT_MS = 10_000;
const ATTEMPT_TIMEOUT_MS = 3_000;

/** A TCP connection to address:port: undefined once one opened, else why not ("ECONNREFUSED"). */
function dial(address: string, port: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port, timeout: ATTEMPT_TIMEOUT_MS });
    socket.once('connect', () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(`no answer in ${ATTEMPT_TIMEOUT_MS / 1000} s`);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

const where = (n: TargetNode) =>
  `node ${n.name} at ${n.address.includes(':') ? `[${n.address}]` : n.address}:${n.port}`;
const key = (n: TargetNode) => n.portFrom ?? 'its port';

/** Resolves once the node's port takes a connection; a UserError when it does not within a few seconds. */
export async function checkServicePort(file: string, node: TargetNode, signal?: AbortSignal): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    signal?.throwIfAborted();
    const why = await dial(node.address, node.port);
    if (why === undefined) return;
    // A name that does not resolve will not start to; a refusal may be a service still starting.
    if (why === 'ENOTFOUND' || Date.now() - t0 >= PORT_WAIT_MS)
      throw new UserError(
        `--target ${file}: ${where(node)} does not answer (${why}): check ${key(node)} and the node's address, and that the service runs`,
      );
    await sleep(250);
  }
}

/** The backend's readiness wait on a node that gave up, as one line naming the node and the key. */
export function serviceNotReady(file: string, node: TargetNode, why: string): UserError {
  const first = why.trim().split('\n')[0]?.slice(0, 200) || 'no answer';
  return new UserError(
    `--target ${file}: ${where(node)} takes connections but the service is not ready (${first}): check that ${key(node)} is the service's client port`,
  );
}
