/**
 * The images a configuration's cluster needs (the lock service's nodes and the data store)
 * and where a module backend's own image is built from: a Dockerfile in the module's
 * folder, when its node specs name one image that is not lockchaos's. A campaign gathers
 * them for every cell before the first runs, so that none fails for want of an image.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { NodeSpec } from '../cluster/cluster.js';
import { NODE_IMAGE, POSTGRES_IMAGE } from '../cluster/docker-engine.js';
import type { ResolvedRun } from '../run-data/resolve.js';

export interface ClusterImages {
  images: string[];
  /** Image → the folder it is built from (`docker build`), for a module backend's own image. */
  contexts: Record<string, string>;
}

/** What these node specs run on; a module backend's own image is built from its folder's Dockerfile. */
export function imagesOf(specs: readonly NodeSpec[], backendModule?: string): ClusterImages {
  const images = [...new Set(specs.map((s) => s.image ?? NODE_IMAGE))];
  const contexts: Record<string, string> = {};
  const own = images.filter((i) => i !== NODE_IMAGE && i !== POSTGRES_IMAGE);
  const folder = backendModule === undefined ? undefined : dirname(backendModule);
  if (folder !== undefined && own.length === 1 && existsSync(join(folder, 'Dockerfile'))) {
    contexts[own[0] as string] = folder;
  }
  return { images, contexts };
}

/** The images of several runs (a campaign's cells), each once. */
export function allClusterImages(runs: Iterable<Pick<ResolvedRun, 'config' | 'nodeSpecs'>>): ClusterImages {
  const images = new Set<string>();
  const contexts: Record<string, string> = {};
  for (const { config, nodeSpecs } of runs) {
    const one = imagesOf(nodeSpecs, config.backendModule);
    for (const i of one.images) images.add(i);
    Object.assign(contexts, one.contexts);
  }
  return { images: [...images], contexts };
}
