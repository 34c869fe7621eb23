/**
 * The commands that run a stored test again: by its test.json, and as flags. Paths in them
 * are `dir` as given: a page passes its own folder ('.'), since it is read wherever it
 * was copied to (a merge, a CI artifact), never on the machine that wrote it.
 */
import { DEFAULTS, type TestConfig } from '../run-data/config.js';
import { flagWords, PARAMETERS } from '../run-data/parameters.js';
import { testName } from '../run-data/resolve.js';
import { runFile } from '../run-data/run-folder.js';
import { cliCommand } from '../util/paths.js';

/** A word for a POSIX shell: bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Fields the flags below leave out or give last: a scenario is only a label (the flags carry
 * its values), the schedule is given as the run's own test.json (--schedule), and the name
 * and store only when they are not the defaults.
 */
const NOT_FLAGS = new Set<string>(['scenario', 'schedule', 'name', 'storeDir']);

/**
 * `replay`: the stored configuration as it was. `flags`: the same test as flags; `unmapped`
 * names test.json fields no flag here knows (a newer configuration): only --replay keeps them.
 */
export function rerunCommands(dir: string, config: TestConfig): { replay: string; flags: string; unmapped: string[] } {
  const words = ['run', ...flagWords(config, NOT_FLAGS)];
  const { schedule, name, storeDir } = PARAMETERS;
  if (config.schedule) words.push(`--${schedule.flag}`, runFile(dir, 'test'));
  if (config.name && config.name !== testName(config)) words.push(`--${name.flag}`, config.name);
  if (config.storeDir && config.storeDir !== DEFAULTS.storeDir) words.push(`--${storeDir.flag}`, config.storeDir);
  const unmapped = Object.keys(config).filter((k) => !Object.hasOwn(PARAMETERS, k));
  return {
    replay: `${cliCommand} run --replay ${shellWord(runFile(dir, 'test'))}`,
    flags: `${cliCommand} ${words.map(shellWord).join(' ')}`,
    unmapped,
  };
}
