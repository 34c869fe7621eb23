/**
 * A run's report.html built on a worker thread (reported-run.ts), so that the calling
 * thread stays free to hear Ctrl-C (building is synchronous, and takes seconds for a long
 * history) and the build has a heap of its own, bounded (report-heap.ts).
 *
 * It answers in messages: `writing` once the run is read and checked (just before its files
 * are replaced), then `built`, or `failed` with a user's mistake as its one line (a
 * UserError does not cross threads as one).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { UserError } from '../util/errors.js';
import { yieldAsSideWork } from '../util/side-cpu-group.js';
import { type BuiltReport, builtReport } from './built-report.js';
import { buildRunReport } from './html.js';

export type ReportThreadMessage =
  | { kind: 'writing' }
  | { kind: 'built'; built: BuiltReport }
  | { kind: 'failed'; userError: string };

const post = (message: ReportThreadMessage) => parentPort?.postMessage(message);

try {
  const { dir, besideWorkloads } = workerData as { dir: string; besideWorkloads?: boolean };
  if (besideWorkloads) yieldAsSideWork();
  post({ kind: 'built', built: builtReport(buildRunReport(dir, {}, () => post({ kind: 'writing' }))) });
} catch (err) {
  if (!(err instanceof UserError)) throw err;
  post({ kind: 'failed', userError: err.message });
}
