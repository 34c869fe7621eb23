/**
 * A configuration as a run takes it: its backend loaded (a module backend located and
 * imported: backends/index.ts), then the run resolved (resolve.ts). The one async step
 * before a run: run(), the CLI's replay, and the client check prepare through it.
 */
import { loadBackendOf } from '../backends/index.js';
import { UserError } from '../util/errors.js';
import type { TestConfig } from './config.js';
import { type ResolvedRun, resolveRun } from './resolve.js';

/**
 * The run `input` describes, its module backend loaded. `from` names where the
 * configuration came from (`--replay: 'run/test.json'`) at the head of a problem with it.
 */
export async function prepareRun(input: TestConfig, from?: string): Promise<ResolvedRun> {
  try {
    const { located, backend } = await loadBackendOf(input);
    return resolveRun(located, backend);
  } catch (err) {
    if (from !== undefined && err instanceof UserError) throw new UserError(`${from}: ${err.message}`);
    throw err;
  }
}
