/**
 * The checks of a run on a worker thread (checks.ts), so that the runner's thread stays
 * free to hear Ctrl-C while a long linearizability search runs: the search is synchronous,
 * and a signal handler on the searching thread would only run once it had finished.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { yieldAsSideWork } from '../src/util/side-cpu-group.js';
import { checkRun } from './checks.js';

const { history, run, opts, besideWorkloads } = workerData as {
  history: Parameters<typeof checkRun>[0];
  run: Parameters<typeof checkRun>[1];
  opts: Parameters<typeof checkRun>[2];
  besideWorkloads?: boolean;
};
if (besideWorkloads) yieldAsSideWork();
parentPort?.postMessage(checkRun(history, run, opts));
