/**
 * A run's report.html built on a worker thread (reported-run.ts), so that the runner's
 * thread stays free to hear Ctrl-C: building is synchronous, and takes seconds for a
 * long history.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildRunReport } from '../report/html.js';

const { reportPath, headline } = buildRunReport((workerData as { dir: string }).dir);
parentPort?.postMessage({ reportPath, headline });
