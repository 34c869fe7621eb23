/**
 * The Docker engine and the node image. One dockerode client for the process (the same
 * major that testcontainers bundles, so there is one copy of it).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { UserError } from '../cli/errors.js';
import { errorMessage } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';

// testcontainers' reaper (Ryuk) is an image that cannot be pulled here; lockchaos removes
// its own containers by label instead (see labels.ts).
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

let client: Docker | undefined;

export function docker(): Docker {
  client ??= new Docker();
  return client;
}

const dockerDir = join(packageRoot, 'docker/');

/** lockchaos/node:<docker/VERSION>: redis, etcd, zookeeper, iptables, iproute2, procps. */
export const NODE_IMAGE = `lockchaos/node:${readFileSync(`${dockerDir}VERSION`, 'utf8').trim()}`;

export const BUILD_IMAGE_COMMAND = `bash ${dockerDir}build-image.sh`;

/** Fails with a UserError that says how to start an engine when none answers. */
export async function ensureEngine(): Promise<void> {
  try {
    await docker().ping();
  } catch (err) {
    const why = errorMessage(err);
    throw new UserError(
      `no Docker engine answers (${why.split('\n')[0]}): start one (as root: bash scripts/ensure-docker.sh, or systemctl start docker)`,
    );
  }
}

export async function imageExists(image = NODE_IMAGE): Promise<boolean> {
  try {
    await docker().getImage(image).inspect();
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds the node image when it is missing, with the build's own progress on stderr; with
 * build: false, stops with the one command that builds it.
 */
export async function ensureImage(opts: { build: boolean; log?: (line: string) => void }): Promise<void> {
  if (await imageExists()) return;
  if (!opts.build) {
    throw new UserError(`the node image ${NODE_IMAGE} is missing: build it with '${BUILD_IMAGE_COMMAND}'`);
  }
  opts.log?.(`node image ${NODE_IMAGE} is missing: building it (about a minute, once)...`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn('bash', [`${dockerDir}build-image.sh`], { stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('exit', (c) => resolve(c ?? 1));
    child.on('error', () => resolve(1));
  });
  if (code !== 0 || !(await imageExists())) {
    throw new UserError(`building ${NODE_IMAGE} failed (exit ${code}): run '${BUILD_IMAGE_COMMAND}' to see why`);
  }
}
