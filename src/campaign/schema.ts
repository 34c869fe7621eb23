/**
 * A small schema validator for campaign files: each check takes an unknown value and its
 * key path ("matrix[1].fencing") and returns the typed value or throws a SchemaError that
 * names the path, what was expected and what was there. No dependency, no magic: the
 * campaign format is small, and its errors must read as one line.
 */
import { nearestOr } from '../util/did-you-mean.js';

export class SchemaError extends Error {
  override name = 'SchemaError';
  constructor(
    readonly path: string,
    readonly problem: string,
    /** An unknown name (backend, workload ...): clear on its own, also for a single value. */
    readonly unknownName = false,
  ) {
    super(path ? `${path}: ${problem}` : problem);
  }
}

/** Several problems found in one pass over a file: a reader fixes them all at once. */
export class SchemaErrors extends SchemaError {
  constructor(readonly problems: SchemaError[]) {
    super('', `${problems.length} problems: ${problems.map((p) => p.message).join('; ')}`);
  }
}

/** Runs one check and keeps its problems instead of stopping at them. */
function keep<T>(problems: SchemaError[], check: () => T): T | undefined {
  try {
    return check();
  } catch (err) {
    if (err instanceof SchemaErrors) problems.push(...err.problems);
    else if (err instanceof SchemaError) problems.push(err);
    else throw err;
    return undefined;
  }
}

function throwProblems(problems: SchemaError[]): void {
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw new SchemaErrors(problems);
}

export type Check<T> = (value: unknown, path: string) => T;

/** How a value that did not fit is shown: `"maybe"`, `3`, `a map`, `a list`, `nothing`. */
export function describe(value: unknown): string {
  if (value === undefined || value === null) return 'nothing';
  if (Array.isArray(value)) return value.length === 0 ? '[]' : 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return String(value);
}

export const fail = (path: string, expected: string, value: unknown): never => {
  throw new SchemaError(path, `expected ${expected}, got ${describe(value)}`);
};

export const child = (path: string, key: string | number) =>
  typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key;

export function str(opts: { pattern?: RegExp; what?: string } = {}): Check<string> {
  const what = opts.what ?? 'a string';
  return (v, path) => {
    if (typeof v !== 'string' || v === '' || (opts.pattern && !opts.pattern.test(v))) return fail(path, what, v);
    return v;
  };
}

export function num(
  opts: { integer?: boolean; min?: number; exclusiveMin?: boolean; max?: number } = {},
): Check<number> {
  const parts = [opts.integer ? 'a whole number' : 'a number'];
  if (opts.min !== undefined && opts.max !== undefined && !opts.exclusiveMin)
    parts.push(`from ${opts.min} to ${opts.max}`);
  else {
    if (opts.min !== undefined) parts.push(`${opts.exclusiveMin ? '>' : '>='} ${opts.min}`);
    if (opts.max !== undefined) parts.push(`<= ${opts.max}`);
  }
  const what = parts.join(' ');
  return (v, path) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return fail(path, what, v);
    if (opts.integer && !Number.isInteger(v)) return fail(path, what, v);
    if (opts.min !== undefined && (opts.exclusiveMin ? v <= opts.min : v < opts.min)) return fail(path, what, v);
    if (opts.max !== undefined && v > opts.max) return fail(path, what, v);
    return v;
  };
}

export function bool(): Check<boolean> {
  return (v, path) => (typeof v === 'boolean' ? v : fail(path, 'true or false', v));
}

/**
 * One of a fixed set of words. `accepts` may admit more than `choices` shows (a registry
 * that knows names not worth listing, module paths: `others` says what they are);
 * `aliases` maps other spellings (true → on).
 */
export function oneOf<T extends string>(
  choices: readonly T[],
  opts: { aliases?: ReadonlyMap<unknown, T>; accepts?: (v: string) => boolean; others?: string; kind?: string } = {},
): Check<T> {
  const what = `${choices.join('|')}${opts.others ? `, or ${opts.others}` : ''}`;
  return (v, path) => {
    const alias = opts.aliases?.get(v);
    if (alias !== undefined) return alias;
    if (typeof v === 'string' && ((choices as readonly string[]).includes(v) || opts.accepts?.(v))) return v as T;
    if (opts.kind && typeof v === 'string') {
      throw new SchemaError(
        path,
        `unknown ${opts.kind} ${describe(v)}${nearestOr(v, choices, `expected one of ${what}`)}`,
        true,
      );
    }
    return fail(path, `one of ${what}`, v);
  };
}

/**
 * A list of items; a single item stands for a list of one (`fencing: on`). A scalar that
 * is not a valid item reports "expected a list of ITEMS", naming the list, not an item.
 */
export function listOf<T>(
  item: Check<T>,
  what: string,
  opts: { single?: boolean; nonEmpty?: boolean } = {},
): Check<T[]> {
  const expected = `a${opts.nonEmpty ? ' non-empty' : ''} list of ${what}`;
  return (v, path) => {
    if (!Array.isArray(v)) {
      if (opts.single && v !== null && v !== undefined && typeof v !== 'object') {
        try {
          return [item(v, path)];
        } catch (err) {
          // A single value stands for a list of one: the list is what was expected.
          if (err instanceof SchemaError && err.path === path && !err.unknownName)
            return fail(path, `a list of ${what}`, v);
          throw err;
        }
      }
      return fail(path, expected, v);
    }
    if (opts.nonEmpty && v.length === 0) return fail(path, expected, v);
    const problems: SchemaError[] = [];
    const out = v.map((x, i) => keep(problems, () => item(x, child(path, i))) as T);
    throwProblems(problems);
    return out;
  };
}

type Shape = Record<string, Check<unknown>>;
type Out<S extends Shape> = { [K in keyof S]?: ReturnType<S[K]> };

/**
 * A map with known keys, every one optional unless listed in `required` (a missing one
 * fails its own check, "got nothing"); an unknown key fails, listing the known ones.
 */
export function record<S extends Shape>(
  shape: S,
  opts: { what?: string; required?: (keyof S & string)[] } = {},
): Check<Out<S>> {
  const known = Object.keys(shape);
  return (v, path) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return fail(path, opts.what ?? 'a map', v);
    const out: Record<string, unknown> = {};
    const problems: SchemaError[] = [];
    for (const key of Object.keys(v)) {
      if (!Object.hasOwn(shape, key)) {
        problems.push(
          new SchemaError(
            child(path, key),
            `unknown key${nearestOr(key, known, `expected one of ${known.join(', ')}`)}`,
          ),
        );
      }
    }
    for (const key of known) {
      const x = (v as Record<string, unknown>)[key];
      // A required key that is missing fails its own check: "expected ..., got nothing".
      if (x === undefined && !opts.required?.includes(key)) continue;
      const checked = keep(problems, () => (shape[key] as Check<unknown>)(x, child(path, key)));
      if (checked !== undefined) out[key] = checked;
    }
    throwProblems(problems);
    return out as Out<S>;
  };
}
