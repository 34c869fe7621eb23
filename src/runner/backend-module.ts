/**
 * A user's backend module, held to what the runner needs before anything starts: its
 * import must finish (a top-level await that never settles would otherwise leave Node with
 * nothing to do: exit 0, no output), and its nodeSpecs must give node specs (a throw or
 * nothing would otherwise surface as a crash deep in the cluster start). Each problem is
 * one UserError line naming the module and the fix.
 */
import type { BackendOptions } from '../backends/backend.js';
import { BACKENDS, type Backend, loadBackend } from '../backends/index.js';
import type { NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { withDeadline } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';

export const MODULE_LOAD_TIMEOUT_MS = 15_000;

const HOW = '(see README, "Adding a lock backend")';

/** loadBackend, with a deadline on the module's import. */
export async function loadBackendModule(name: string, timeoutMs = MODULE_LOAD_TIMEOUT_MS): Promise<void> {
  await withDeadline(
    loadBackend(name),
    timeoutMs,
    () =>
      new UserError(
        `backend module ${name} did not finish loading in ${timeoutMs / 1000} s (a top-level await that never settles?): make its import complete ${HOW}`,
      ),
  );
}

/** backend.nodeSpecs(opts), or a UserError when it throws or gives no node specs. */
export function checkedNodeSpecs(backend: Backend, opts: BackendOptions): NodeSpec[] {
  let specs: unknown;
  const call = `${backend.name}: nodeSpecs({ nodes: ${opts.nodes} })`;
  try {
    specs = backend.nodeSpecs(opts);
  } catch (err) {
    throw new UserError(`backend ${call} threw: ${errorMessage(err).split('\n')[0]} ${HOW}`);
  }
  if (!Array.isArray(specs) || specs.length === 0) {
    const got = Array.isArray(specs) ? 'an empty list' : specs === undefined ? 'nothing' : typeof specs;
    throw new UserError(`backend ${call} returned ${got}: return a list of node specs ${HOW}`);
  }
  const bad = specs.findIndex(
    (s: Partial<NodeSpec> | null) =>
      typeof s !== 'object' ||
      s === null ||
      typeof s.name !== 'string' ||
      s.name === '' ||
      typeof s.ready !== 'function',
  );
  if (bad >= 0) {
    throw new UserError(`backend ${call}: node spec ${bad} has no name or no ready(node) ${HOW}`);
  }
  const lock = specs.filter((s: NodeSpec) => s.role === 'node').length;
  if (lock === 0) throw new UserError(`backend ${call}: no node spec has role 'node' ${HOW}`);
  // Built-in backends' ready() have deadlines of their own.
  return BACKENDS[backend.name] === backend ? specs : (specs as NodeSpec[]).map((s) => checkedReady(backend.name, s));
}

export const READY_TIMEOUT_MS = 60_000;

/**
 * A module's node spec whose ready() ends in time and fails in one line: one that never
 * settled hung the cluster start for good, one that threw was a stack trace.
 */
function checkedReady(name: string, spec: NodeSpec): NodeSpec {
  const ms = spec.readyTimeoutMs ?? READY_TIMEOUT_MS;
  const call = `backend ${name}: node '${spec.name}' ready()`;
  const ready = (node: NodeHandle) =>
    withDeadline(
      Promise.resolve()
        .then(() => spec.ready(node))
        .catch((err) => {
          throw new UserError(`${call} threw: ${errorMessage(err).split('\n')[0]} ${HOW}`);
        }),
      ms,
      () =>
        new UserError(
          `${call} did not settle in ${ms / 1000} s: make it resolve once the server answers, or throw ${HOW}`,
        ),
    );
  return { ...spec, ready };
}
