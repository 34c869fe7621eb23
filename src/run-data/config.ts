/**
 * A test's configuration (its parameters: parameters.ts) as stored: a test.json or a
 * schedule file read back and checked field by field. A run's naming, paths and whole
 * check are resolve.ts's.
 */
import type { ScheduledFault } from '../nemesis/schedule.js';
import { FAULT_KINDS } from '../nemesis/spec.js';
import { MAX_DEPTH, nestedDeeperThan } from '../util/depth.js';
import { errorMessage, UserError } from '../util/errors.js';
import { DEFAULTS, PARAMETER_LIST, PARAMETERS, type TestConfig } from './parameters.js';

export { DEFAULTS, type TestConfig };

/** A run's fencing in a word, as names, cell ids and scenarios' expectations spell it. */
export const fencingWord = (fencing: boolean): 'fenced' | 'unfenced' => (fencing ? 'fenced' : 'unfenced');

/** The JSON type each kind of parameter is stored as. */
const STORED_TYPE = { number: 'number', string: 'string', switch: 'boolean', 'on-off': 'boolean' } as const;

/** A file's text as JSON; bad JSON is one UserError line naming the file. */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UserError(`'${file}' is not JSON (${errorMessage(err).split('\n')[0]})`);
  }
}

/**
 * A stored configuration's fields checked: every field every run has recorded, and any
 * other field given, of its type (parameters.ts), but those in `except` (a schedule file's
 * configuration has no name, seed or store). Other keys are kept as they are.
 */
export function storedConfig(data: unknown, file: string, except: readonly string[] = []): Partial<TestConfig> {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new UserError(`'${file}' is not a test configuration (expected a JSON object, as run folders' test.json)`);
  }
  if (nestedDeeperThan(data)) {
    throw new UserError(
      `'${file}' is not a test configuration: it nests more than ${MAX_DEPTH} levels deep (test.json is flat)`,
    );
  }
  const stored = data as Record<string, unknown>;
  for (const p of PARAMETER_LIST) {
    if (except.includes(p.field)) continue;
    const got = stored[p.field];
    if (got === undefined) {
      if (p.alwaysRecorded) throw new UserError(`'${file}' is not a test configuration: ${p.field}: missing`);
      // Recorded since a later version: an older run ran as its default.
      if (p.default !== undefined) stored[p.field] = p.default;
      continue;
    }
    if (p.type === 'faults') {
      stored[p.field] = parseScheduledFaults(got, `'${file}' ${p.field}`);
      continue;
    }
    const type = STORED_TYPE[p.type];
    if (typeof got !== type) {
      throw new UserError(`'${file}' is not a test configuration: ${p.field}: ${JSON.stringify(got)} is not a ${type}`);
    }
  }
  return stored as Partial<TestConfig>;
}

/**
 * A schedule's faults read back (test.json, a schedule file): a list of {kind, atMs,
 * durationMs, seed}. Bad content is one UserError line naming where and which fault.
 */
export function parseScheduledFaults(data: unknown, where: string): ScheduledFault[] {
  if (!Array.isArray(data)) throw new UserError(`${where}: expected a list of faults`);
  return data.map((f: unknown, i) => {
    const bad = (why: string) =>
      new UserError(`${where}: fault ${i + 1} ${why} (each is {kind, atMs, durationMs, seed})`);
    if (f === null || typeof f !== 'object' || Array.isArray(f)) throw bad('is not an object');
    const { kind, atMs, durationMs, seed, did } = f as Record<string, unknown>;
    if (typeof kind !== 'string' || !Object.hasOwn(FAULT_KINDS, kind)) {
      throw bad(`has kind ${JSON.stringify(kind)}: use one of ${Object.keys(FAULT_KINDS).join(', ')}`);
    }
    const ms = (v: unknown, name: string, min: number) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > PARAMETERS.timeLimitS.bounds.max * 1000) {
        throw bad(`has ${name} ${JSON.stringify(v)}: give milliseconds, ${min} to a day`);
      }
      return v;
    };
    if (typeof seed !== 'number' || !Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) {
      throw bad(`has seed ${JSON.stringify(seed)}: give a whole number from 0 to ${2 ** 32 - 1}`);
    }
    const fault: ScheduledFault = {
      kind,
      atMs: ms(atMs, 'atMs', 0),
      durationMs: ms(durationMs, 'durationMs', 1),
      seed,
    };
    if (did !== undefined) fault.did = did;
    return fault;
  });
}
