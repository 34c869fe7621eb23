/**
 * What building a run's report answers across a thread: the run as read and checked, without
 * its history (a million operations stay where they were read), the files and the headline.
 */
import type { RunReport } from './html.js';

export type BuiltReport = Omit<RunReport, 'run'> & {
  run: Omit<RunReport['run'], 'history'> & { operations: number };
};

export function builtReport({ run, reportPath, junitPath, headline }: RunReport): BuiltReport {
  const { history, ...rest } = run;
  return { run: { ...rest, operations: history.length }, reportPath, junitPath, headline };
}
