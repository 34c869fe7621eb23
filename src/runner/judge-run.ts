/**
 * A run's check phase: its history checked against the run's conditions, the verdict
 * written to results.json and returned. A run that did not run as configured says so in
 * its conditions, which the verdict carries.
 */
import { cappedPointsResult, codePointsResult, coverage } from '../../checkers/coverage.js';
import { faultWindows } from '../../checkers/fault-windows.js';
import { countedVerdict } from '../../checkers/result.js';
import { CHECK_INTERRUPTED, interruptibleCheckRun } from '../../workloads/checks.js';
import { clientProgramName, MAX_PROGRAM_POINTS } from '../backends/client-protocol.js';
import { STORE_KEY } from '../datastore/keys.js';
import { aimedFaults } from '../nemesis/aimed-faults.js';
import { badGrants, checkInterrupted, notHealed, runVerdict } from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import type { ResolvedRun } from '../run-data/resolve.js';
import { type RunResult, writeResults, writeTestJson } from '../run-data/run-folder.js';
import type { RunClock } from '../run-data/run-phases.js';
import { storageError } from '../util/fs-errors.js';
import { stallsBehindOverlaps, stallsLine, unaskedStalls } from './machine-stalls.js';
import { classifyBrokenPrograms } from './program-failures.js';
import type { RunRecording } from './recording.js';
import type { WorkloadEnded } from './run-workload.js';

/** What the check phase uses of the run: where its verdict goes, its history, its times, and Ctrl-C. */
export interface Judging {
  /** The run folder. */
  dir: string;
  recording: RunRecording;
  clock: RunClock;
  log: (line: string) => void;
  /** Ctrl-C: it ends the checking too, unless the workload had its Ctrl-C already. */
  signal: AbortSignal | undefined;
  /** A campaign's cell: the checking yields the CPU to other cells' workloads. */
  besideWorkloads: boolean;
  /** What the teardown could not heal on a target's nodes, a line per node: conditions of the run. */
  notHealed: readonly string[];
}

/** The history checked against the run's conditions: the verdict, in results.json and returned. */
export async function judgeRun(resolved: ResolvedRun, done: WorkloadEnded, run: Judging): Promise<RunResult> {
  const { dir, recording, clock } = run;
  const { backend, config } = resolved;
  const { writer, stoppedEarly } = recording;
  const { conditions, pool, applied } = done;
  if (writer.error) {
    const stored = storageError(writer.error, writer.path);
    throw stored ?? writer.error;
  }
  const history = writer.finish();
  conditions.push(...run.notHealed.map(notHealed));
  const refused = badGrants(history, backend.name);
  if (refused) conditions.push(refused);
  // A program that broke under a fault is the library's failure (a counted result); one
  // with no fault near, a condition (program-failures.ts).
  const windows = faultWindows(history);
  const programs = classifyBrokenPrograms(pool.brokenPrograms, windows, {
    ttlMs: config.ttlMs,
    command: clientProgramName(config.clientCommand ?? ''),
  });
  conditions.push(...programs.conditions);
  // A holder the machine stalled past its lease: the overlap is the harness's, not the lock's.
  const unasked = unaskedStalls(pool.stalls, windows);
  conditions.push(...stallsBehindOverlaps(history, unasked, config.ttlMs));
  const stalled = stallsLine(unasked);
  if (stalled) run.log(stalled);
  if (pool.errors.length) throw new Error(`client workers failed:\n${pool.errors.join('\n')}`);

  // test.json again, now with the faults the run applied: its schedule, as data.
  const recorded = { storeKey: STORE_KEY, schedule: applied };
  writeTestJson(dir, config, recorded);
  // The configuration to run it again, as a stored run reads back (run-folder.ts rerunConfig).
  const ran: TestConfig = { ...config, schedule: applied };
  // On a thread that Ctrl-C ends (a long search must not hold the run hostage); a run whose
  // workload was interrupted has had its Ctrl-C: a second one during checking quits at once.
  // One that came after the workload (the clients' stop, the teardown) ends the checking:
  // the history is complete, and `report` checks it.
  const workloadInterrupted = conditions.some((c) => c.kind === 'interrupted');
  const checkSignal = workloadInterrupted ? new AbortController().signal : run.signal;
  const checked = await interruptibleCheckRun(
    history,
    config,
    { storeKey: STORE_KEY },
    checkSignal,
    run.besideWorkloads,
  );
  const early = stoppedEarly ? { stoppedEarly } : {};
  if (checked === CHECK_INTERRUPTED) {
    // The workload ran and is recorded in full: only the verdict is missing, and the
    // report command gives it (it checks a folder whose results say unchecked).
    const unchecked = checkInterrupted(run.signal?.reason, dir);
    conditions.push(unchecked);
    const fields = {
      valid: 'unknown' as const,
      conditions,
      config: ran,
      timings: clock.timings(),
      results: [],
      ...early,
    };
    writeResults(dir, { ...fields, unchecked: unchecked.message });
    return { dir, history, ...fields };
  }
  const aimed = aimedFaults(
    resolved.faults.map((f) => f.spec),
    backend.capabilities?.inAcquirePausePoint,
  );
  const points = coverage(history, checked, done.reached, aimed, config.ttlMs);
  // A fault aimed at a point it never hit tested nothing there: valid would claim too much.
  const capped = cappedPointsResult(
    pool.pointsCapped.map((c) => c.client),
    MAX_PROGRAM_POINTS,
  );
  for (const r of capped) run.log(`note: ${r.summary}`);
  const results = [...checked, ...(programs.result ? [programs.result] : []), ...codePointsResult(points), ...capped];
  const valid = runVerdict(countedVerdict(results), conditions);
  const ranFor = clock.timings();
  writeResults(dir, { valid, conditions, config: ran, timings: ranFor, results, coverage: points, ...early });
  return { dir, config: ran, valid, results, conditions, history, timings: ranFor, coverage: points, ...early };
}
