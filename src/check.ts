/**
 * lockchaos's offline checking, as its own entry (`import { check } from 'lockchaos/check'`):
 * the history readers, the models and the linearizability search, and nothing that runs
 * tests. The main entry ('lockchaos') loads the Docker and client libraries as well (about
 * 100 MiB before any check); this one loads none of them.
 *
 *     import { check, checkParallel, readHistoryFile } from 'lockchaos/check';
 *
 *     const { history } = readHistoryFile('history.edn');
 *     check(history, 'register').valid;                          // in this thread
 *     (await checkParallel(history, 'kv')).counterexample?.describe; // parts on worker threads
 */
export {
  type CheckOptions,
  type CheckStats,
  type Counterexample,
  checkLinearizable,
  checkLinearizable as check,
  type LinearizableResult,
} from '../checkers/linearizable/check-linearizable.js';
export {
  checkLinearizableParallel,
  checkLinearizableParallel as checkParallel,
  type ParallelOptions,
} from '../checkers/linearizable/parallel.js';
export { findModel, guessModel, MODEL_NAMES, MODELS, type Model } from '../checkers/models/index.js';
export { type CheckResult, exitCodeFor, type Validity, worst } from '../checkers/result.js';
export type { Op, OpType, Process } from './history/op.js';
export { type HistoryFormat, parseHistory, readHistoryFile } from './history/read.js';
export { UserError } from './util/errors.js';
