/**
 * How this process (the runner, its client workers and their proxies) reaches the nodes on
 * a run's bridge network. On a Linux host the bridge addresses route from the host
 * (`direct`). Inside a container with the engine's socket mounted (a CI job in a container,
 * or lockchaos run in a container on Docker Desktop, Colima or a remote engine) they do not:
 * Docker isolates user-defined bridges from each other. There this process's own container
 * joins each run's network (`join`), so every client, proxy and fault works as on a host:
 * the clients are still this machine's processes, paused and killed by signal.
 *
 * Chosen by LOCKCHAOS_CLIENT_PATH (direct, join), else found: join when this process runs
 * in a container the engine knows, direct otherwise. `doctor` tests the path it names.
 */
import { readFileSync } from 'node:fs';
import { UserError } from '../util/errors.js';
import { docker } from './docker-engine.js';

export type ClientPath = { kind: 'direct' } | { kind: 'join'; container: string };

/** The id of the container this process runs in, from its mounts (/etc/hostname is bind-mounted from the engine's folder of it). */
export function ownContainerId(mountinfo = readMountinfo()): string | undefined {
  const m = /\/containers\/([0-9a-f]{64})\/(?:hostname|resolv\.conf|hosts)\b/.exec(mountinfo);
  return m?.[1];
}

function readMountinfo(): string {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return '';
  }
}

let found: Promise<ClientPath> | undefined;

/** The path of this process, found once. */
export function clientPath(): Promise<ClientPath> {
  found ??= findClientPath();
  return found;
}

async function findClientPath(): Promise<ClientPath> {
  const asked = process.env.LOCKCHAOS_CLIENT_PATH;
  if (asked !== undefined && asked !== 'direct' && asked !== 'join' && asked !== '') {
    throw new UserError(`LOCKCHAOS_CLIENT_PATH is '${asked}': set it to direct or join, or unset it`);
  }
  if (asked === 'direct') return { kind: 'direct' };
  const id = ownContainerId();
  const known =
    id !== undefined &&
    (await docker()
      .getContainer(id)
      .inspect()
      .then(
        () => true,
        () => false,
      ));
  if (asked === 'join' && !known) {
    throw new UserError(
      'LOCKCHAOS_CLIENT_PATH=join: this process is not in a container of this engine: unset it, or run lockchaos in a container with the engine socket mounted',
    );
  }
  return known ? { kind: 'join', container: id as string } : { kind: 'direct' };
}

/** The path in words, for doctor and the run's log. */
export const clientPathWords = (p: ClientPath) =>
  p.kind === 'direct'
    ? "direct: this process dials the nodes at their addresses on the run's bridge network"
    : `join: this process's container (${p.container.slice(0, 12)}) joins each run's network`;

/** Makes the run's network reachable from this process (join: connects its container). */
export async function reachNetwork(networkName: string): Promise<void> {
  const path = await clientPath();
  if (path.kind === 'join') await docker().getNetwork(networkName).connect({ Container: path.container });
}
