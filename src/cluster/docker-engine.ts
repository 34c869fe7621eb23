/**
 * The Docker engine and the node image. One dockerode client for the process.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { errorMessage, UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';

let client: Docker | undefined;

export function docker(): Docker {
  client ??= new Docker();
  return client;
}

const dockerDir = join(packageRoot, 'docker/');

/** lockchaos's own images, each built from docker/<name>/ (build-image.sh <name>). */
const imageOf = (name: 'node' | 'postgres') =>
  `lockchaos/${name}:${readFileSync(join(dockerDir, name, 'VERSION'), 'utf8').trim()}`;

/** lockchaos/node: redis, redis-sentinel, etcd, zookeeper, iptables (also the netns helper). */
export const NODE_IMAGE = imageOf('node');
/** lockchaos/postgres: PostgreSQL 15, without iptables. */
export const POSTGRES_IMAGE = imageOf('postgres');

export const BUILD_IMAGE_COMMAND = `bash ${dockerDir}build-image.sh`;

/** How to start an engine: the script ships in the package (as root on Debian it installs one). */
export const START_ENGINE = `as root: bash ${join(packageRoot, 'scripts/ensure-docker.sh')}, or systemctl start docker`;

/** The command that builds one of lockchaos's images; undefined for anyone else's. */
function buildCommand(image: string): string[] | undefined {
  if (image === NODE_IMAGE) return [`${dockerDir}build-image.sh`, 'node'];
  if (image === POSTGRES_IMAGE) return [`${dockerDir}build-image.sh`, 'postgres'];
  return undefined;
}

/** Fails with a UserError that says how to start an engine when none answers. */
export async function ensureEngine(): Promise<void> {
  try {
    await docker().ping();
  } catch (err) {
    const why = errorMessage(err);
    throw new UserError(`no Docker engine answers (${why.split('\n')[0]}): start one (${START_ENGINE})`);
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

/** Builds (or pulls) of this process, by image: parallel campaign cells share one. */
const pending = new Map<string, Promise<void>>();

/** How images are made sure of: build when missing, progress lines, and where an image is built from. */
export interface EnsureImageOptions {
  build: boolean;
  log?: (line: string) => void;
  images?: string[];
  /**
   * A folder with a Dockerfile per image that is built from one (a module backend's own
   * image, from the module's folder): `docker build -t IMAGE FOLDER` when it is missing.
   */
  contexts?: Record<string, string>;
}

/**
 * Makes sure the node image and every image the run names exist. lockchaos's own are built
 * when missing (with the build's own progress on stderr), and so is one with a build
 * context; anyone else's is pulled. With build: false, stops with the one command that
 * builds it.
 */
export async function ensureImage(opts: EnsureImageOptions) {
  const images = [...new Set([NODE_IMAGE, ...(opts.images ?? [])])];
  for (const image of images) {
    let done = pending.get(image);
    if (!done) {
      done = provide(image, opts);
      pending.set(image, done);
      done.catch(() => pending.delete(image));
    }
    await done;
  }
}

async function provide(image: string, opts: EnsureImageOptions): Promise<void> {
  if (await imageExists(image)) return;
  const context = opts.contexts?.[image];
  const own = buildCommand(image);
  if (context !== undefined) {
    // --force-rm: a step that fails leaves no stopped container behind.
    return build(
      image,
      ['docker', 'build', '--force-rm', '-t', image, context],
      `from ${join(context, 'Dockerfile')}`,
      opts,
    );
  }
  if (own) return build(image, ['bash', ...own], '(a few minutes, once)', opts);
  opts.log?.(`image ${image} is missing: pulling it...`);
  try {
    await pull(image);
  } catch (err) {
    throw new UserError(
      `the image ${image} is missing and could not be pulled (${errorMessage(err).split('\n')[0]}): build or load it (docker build -t ${image} ...)`,
    );
  }
}

/**
 * Builds a missing image with `argv` (its progress on stderr, not among a run's results);
 * with build: false, or when it fails, one UserError line with the command to run.
 */
async function build(image: string, argv: string[], how: string, opts: EnsureImageOptions): Promise<void> {
  const command = argv.join(' ');
  if (!opts.build) throw new UserError(`the image ${image} is missing: build it with '${command}'`);
  opts.log?.(`image ${image} is missing: building it ${how}...`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: ['ignore', 2, 2] });
    child.on('exit', (c) => resolve(c ?? 1));
    child.on('error', () => resolve(127));
  });
  if (code !== 0 || !(await imageExists(image))) {
    throw new UserError(`building ${image} failed (exit ${code}): run '${command}' to see why`);
  }
}

/** docker pull, to the end of its progress stream. */
async function pull(image: string): Promise<void> {
  const stream = await docker().pull(image);
  await new Promise<void>((resolve, reject) =>
    docker().modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())),
  );
}
