/**
 * A schedule file: a run's faults as data, with the run parameters they were applied
 * under, so that `lockchaos run --schedule FILE` gives the same faults to a fresh run (a
 * new seed for the clients unless --seed is given). `lockchaos shrink` writes one for the
 * smallest reproducer it found; a run folder or its test.json serves as one too.
 */
import type { ScheduledFault } from '../nemesis/schedule.js';
import { UserError } from '../util/errors.js';
import { parseJson, parseScheduledFaults, storedConfig, type TestConfig } from './config.js';
import { PARAMETERS } from './parameters.js';
import { parseTestJson, readRunFile, rerunConfig } from './run-folder.js';

export const SCHEDULE_FORMAT = 'lockchaos-schedule/1';

/** The configuration a schedule carries: the run's, without what names one run. */
export type ScheduleConfig = Omit<TestConfig, 'name' | 'seed' | 'storeDir' | 'schedule'>;

export interface ScheduleFile {
  format: typeof SCHEDULE_FORMAT;
  config: ScheduleConfig;
  faults: ScheduledFault[];
}

/** The schedule file of a configuration that has its faults (a finished run's, a candidate's). */
export function scheduleFileOf(config: TestConfig): ScheduleFile {
  const { name: _n, seed: _s, storeDir: _d, schedule, ...rest } = config;
  return { format: SCHEDULE_FORMAT, config: rest, faults: schedule ?? [] };
}

/** What names one run: a schedule lends the other run parameters. */
const ONE_RUN: readonly string[] = ['name', 'seed', 'storeDir'];

/** The run parameters a schedule lends: those this version knows, but what names one run and the faults. */
const lent = (config: Partial<TestConfig>): Partial<ScheduleConfig> =>
  Object.fromEntries(
    Object.entries(config).filter(([k]) => Object.hasOwn(PARAMETERS, k) && !ONE_RUN.includes(k) && k !== 'schedule'),
  );

/**
 * Reads a schedule: a schedule file, or a run's test.json or folder (its recorded faults).
 * A bad file is one UserError line that names it and what is wrong.
 */
export function readScheduleFile(path: string): { config: Partial<ScheduleConfig>; faults: ScheduledFault[] } {
  const { file, text } = readRunFile(path, '--schedule');
  const data = parseJson(text, file);
  const record =
    data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  if (record.format === SCHEDULE_FORMAT) {
    const config = storedConfig(record.config, `${file} config`, ONE_RUN);
    return { config: lent(config), faults: parseScheduledFaults(record.faults, `'${file}' faults`) };
  }
  if ('recorded' in record || 'schedule' in record) {
    // As a schedule file has it: the run parameters, not what named that one run, and the
    // faults the run applied.
    const config = rerunConfig(parseTestJson(text, file));
    if (config.schedule) return { config: lent(config), faults: config.schedule };
  }
  throw new UserError(
    `--schedule: '${file}' is not a schedule: give a schedule file (format ${SCHEDULE_FORMAT}, as lockchaos shrink writes), or a run folder or test.json that recorded its faults`,
  );
}
