/** The commands that run a stored test again: by its test.json, and as flags. */
import { join, resolve } from 'node:path';
import { DEFAULTS, type TestConfig, testName } from '../runner/config.js';

/** A word for a POSIX shell: bare when safe, else single-quoted. */
export function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The flag for each TestConfig field (`lockchaos run --help`). */
const FLAGS: [keyof TestConfig, string][] = [
  ['backend', '--backend'],
  ['workload', '--workload'],
  ['nemesis', '--nemesis'],
  ['fencing', '--fencing'],
  ['timeLimitS', '--time-limit'],
  ['concurrency', '--concurrency'],
  ['ttlMs', '--ttl'],
  ['holdMs', '--hold'],
  ['rate', '--rate'],
  ['acquireTimeoutMs', '--acquire-timeout'],
  ['requestTimeoutMs', '--request-timeout'],
  ['nemesisIntervalS', '--nemesis-interval'],
  ['loseData', '--lose-data'],
  ['nodes', '--nodes'],
  ['pauseTtl', '--pause-ttl'],
  ['backoffJitterMs', '--backoff-jitter'],
  ['backendOptions', '--backend-options'],
  ['stopOnViolation', '--stop-on-violation'],
  ['seed', '--seed'],
];

/**
 * Fields the flags need not repeat: the name and store come after, a scenario is only a
 * label, and the schedule is given as the run's own test.json (--schedule).
 */
const NOT_FLAGS = new Set(['name', 'storeDir', 'scenario', 'schedule']);

/**
 * `replay`: the stored configuration as it was. `flags`: the same test as flags; `unmapped`
 * names test.json fields no flag here knows (a newer configuration): only --replay keeps them.
 */
export function rerunCommands(dir: string, config: TestConfig): { replay: string; flags: string; unmapped: string[] } {
  const words = ['lockchaos', 'run'];
  for (const [key, flag] of FLAGS) {
    const v = config[key];
    if (v === undefined || v === null) continue;
    if (typeof v === 'boolean' && key !== 'fencing') {
      if (v) words.push(flag);
      continue;
    }
    words.push(flag, key === 'fencing' ? (v ? 'on' : 'off') : String(v));
  }
  if (config.schedule) words.push('--schedule', join(resolve(dir), 'test.json'));
  if (config.name && config.name !== testName(config)) words.push('--name', config.name);
  if (config.storeDir && config.storeDir !== DEFAULTS.storeDir) words.push('--store', config.storeDir);
  const known = new Set<string>(FLAGS.map(([k]) => k));
  const unmapped = Object.keys(config).filter((k) => !known.has(k) && !NOT_FLAGS.has(k));
  return {
    replay: `lockchaos run --replay ${shellWord(join(resolve(dir), 'test.json'))}`,
    flags: words.map(shellWord).join(' '),
    unmapped,
  };
}
