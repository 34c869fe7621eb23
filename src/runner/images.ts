/**
 * The images a configuration's cluster needs (the lock service's nodes and the data store)
 * and where a module backend's own image is built from: a Dockerfile in the module's
 * folder, when its node specs name one image that is not lockchaos's. A campaign gathers
 * them for every cell before the first runs, so that none fails for want of an image.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { backendOf } from '../backends/index.js';
import type { NodeSpec } from '../cluster/cluster.js';
import { NODE_IMAGE, POSTGRES_IMAGE } from '../cluster/engine.js';
import { dataStoreNodeSpec } from '../datastore/datastore.js';
import { checkedNodeSpecs } from './backend-module.js';
import { backendOptionsOf, type TestConfig } from './config.js';

export interface ClusterImages {
  images: string[];
  /** Image → the folder it is built from (`docker build`), for a module backend's own image. */
  contexts: Record<string, string>;
}

/** What a validated configuration's cluster runs on. */
export function clusterImages(config: TestConfig): ClusterImages {
  const backend = backendOf(config);
  if (!backend) throw new Error(`unreachable: backend ${config.backend} is validated`);
  return imagesOf(
    [...checkedNodeSpecs(backend, backendOptionsOf(config, backend)), dataStoreNodeSpec()],
    config.backendModule,
  );
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

/** The images of several configurations (a campaign's cells), each once. */
export function allClusterImages(configs: readonly TestConfig[]): ClusterImages {
  const images = new Set<string>();
  const contexts: Record<string, string> = {};
  const seen = new Set<string>(); // configurations alike but for their seed need one look
  for (const c of configs) {
    const key = JSON.stringify([c.backend, c.backendModule, c.backendOptions, c.nodes, c.ttlMs]);
    if (seen.has(key)) continue;
    seen.add(key);
    const one = clusterImages(c);
    for (const i of one.images) images.add(i);
    Object.assign(contexts, one.contexts);
  }
  return { images: [...images], contexts };
}
