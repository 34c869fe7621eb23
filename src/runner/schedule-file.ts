/**
 * A schedule file: a run's faults as data, with the run parameters they were applied
 * under, so that `lockchaos run --schedule FILE` gives the same faults to a fresh run (a
 * new seed for the clients unless --seed is given). `lockchaos shrink` writes one for the
 * smallest reproducer it found; a run folder or its test.json serves as one too.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ScheduledFault } from '../nemesis/schedule.js';
import { UserError } from '../util/errors.js';
import { parseJson, parseScheduledFaults, storedConfig, type TestConfig } from './config.js';
import { PARAMETERS } from './parameters.js';

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

/**
 * A file a flag names, or a run folder's test.json: its path and text. A missing or
 * unreadable one is one UserError line that begins with the flag (when one is given).
 */
export function readRunFile(path: string, flag?: string): { file: string; text: string } {
  const at = flag ? `${flag}: ` : '';
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = join(path, 'test.json');
  } catch {
    throw new UserError(`${at}no such run folder or file '${path}'`);
  }
  try {
    return { file, text: readFileSync(file, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UserError(`${at}'${path}' has no test.json: give a run folder or its test.json`);
    throw new UserError(`${at}cannot read '${file}' (${code ?? String(err)})`);
  }
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
  if ('schedule' in record) {
    // As a schedule file has it: the run parameters, not what named that one run.
    const config = storedConfig(data, file);
    return { config: lent(config), faults: config.schedule ?? [] };
  }
  throw new UserError(
    `--schedule: '${file}' is not a schedule: give a schedule file (format ${SCHEDULE_FORMAT}, as lockchaos shrink writes), or a run folder or test.json that recorded its faults`,
  );
}
