/**
 * junit.xml for one run: one test case per checker (className: the test's name). A counted
 * checker that found a violation fails its case with the violation in words and the path of
 * report.html; one that could not decide is skipped; a checker that does not count toward
 * the verdict (e.g. mutual exclusion with fencing on) never fails: its verdict is in
 * system-out.
 */

import { basename, join, resolve } from 'node:path';
import { verdictWord } from '../../checkers/result.js';
import { firstViolationWords } from '../../checkers/violations.js';
import { conditionsText } from '../run-data/conditions.js';
import type { LoadedRun } from '../run-data/run-folder.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { type JUnitCase, type JUnitSuite, junitXml } from './junit.js';

export function runSuite(run: LoadedRun, reportPath: string): JUnitSuite {
  const { config } = run;
  const cutNote = run.cutShort ? `run incomplete: ${run.cutShort}\n` : '';
  const cases: JUnitCase[] = run.results.map((r) => {
    const counted = r.counts !== false;
    const c: JUnitCase = { name: r.checker, className: config.name, timeS: (r.timeMs ?? 0) / 1000 };
    const out = [`${verdictWord(r.valid)}: ${r.summary}`];
    if (!counted) out.unshift('not counted toward the verdict (shown for information)');
    if (counted && r.valid === false) {
      c.failure = {
        message: `${firstViolationWords(r)} (report: ${reportPath})`,
        body: `${r.summary}\n\nreport: ${reportPath}\nseed: ${config.seed}\n${cutNote}`,
      };
    } else if (counted && r.valid === 'unknown') {
      c.skipped = `unknown: ${r.summary}`;
    }
    c.systemOut = `${out.join('\n')}\nreport: ${reportPath}\n${cutNote}`;
    return c;
  });
  // A run that did not run as configured: one case in error, so CI shows it beside the verdict.
  if (run.conditions.length > 0) {
    const words = conditionsText(run.conditions);
    cases.unshift({
      name: 'run as configured',
      className: config.name,
      timeS: 0,
      error: {
        message: `the run ${words}; verdict ${verdictWord(run.valid)} (report: ${reportPath})`,
        body: `${run.conditions.map((c) => `${c.kind}: ${c.message}`).join('\n')}\n\nreport: ${reportPath}\nseed: ${config.seed}`,
      },
    });
  }
  const properties: Record<string, string> = {
    seed: String(config.seed),
    backend: config.backend,
    workload: config.workload,
    nemesis: config.nemesis,
    fencing: config.fencing ? 'on' : 'off',
    'time-limit-s': String(config.timeLimitS),
    ...(run.timings ? { 'run-time-s': run.timings.totalS.toFixed(1) } : {}),
    verdict: verdictWord(run.valid),
    'run-folder': resolve(run.dir),
    report: reportPath,
  };
  if (run.cutShort) properties.incomplete = run.cutShort;
  if (run.conditions.length > 0) properties['not-as-configured'] = run.conditions.map((c) => c.message).join('; ');
  const suite: JUnitSuite = { name: config.name, properties, cases };
  // The run folder's name is its start time (2026-11-29T08-53-02.652Z).
  const m = /^(\d{4}-\d\d-\d\dT\d\d)-(\d\d)-(\d\d(?:\.\d+)?)Z$/.exec(basename(resolve(run.dir)));
  if (m) suite.timestamp = `${m[1]}:${m[2]}:${m[3]}`;
  return suite;
}

/** Writes junit.xml into the run folder; returns its path. */
export function writeRunJUnit(run: LoadedRun, reportPath = join(resolve(run.dir), 'report.html')): string {
  const path = join(run.dir, 'junit.xml');
  writeFileAtomic(path, junitXml([runSuite(run, reportPath)]));
  return path;
}
