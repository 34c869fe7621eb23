import { parseArgs } from 'node:util';
import { isModulePath } from '../backends/module.js';
import { nearestOr, suggestion } from '../util/did-you-mean.js';
import { UserError } from '../util/errors.js';

/**
 * node:util parseArgs takes `--concurrency -1` for an option followed by another option
 * and says "argument is ambiguous". A value that looks like a negative number is a value:
 * it is joined to its option (`--concurrency=-1`), so that validation can say what is
 * wrong with it.
 */
export function joinNegativeValues(argv: readonly string[], options: Record<string, { type: string }>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name && options[name]?.type === 'string' && next !== undefined && /^-(\d|\.\d|Infinity)/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** A subcommand's flags as parseArgs reads them: string or boolean values, and positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * A subcommand's argv parsed strictly; a flag it does not know (or a value missing) is one
 * UserError line that points at the command's --help.
 */
export function parseCommandArgs(
  argv: readonly string[],
  options: Record<string, { type: 'string' | 'boolean'; short?: string }>,
  command: string,
  { positionals = true } = {},
): ParsedArgs {
  try {
    const { values, positionals: rest } = parseArgs({
      args: joinNegativeValues(argv, options),
      options,
      strict: true,
      allowPositionals: positionals,
    });
    return { values: values as ParsedArgs['values'], positionals: rest };
  } catch (err) {
    throw argsError(err, options, command);
  }
}

/**
 * node:util parseArgs's error as one UserError line: its first sentence, a mistyped
 * option's nearest known one ("unknown option '--nemesiss': did you mean --nemesis?"), and
 * the command's --help.
 */
export function argsError(err: unknown, options: Record<string, unknown>, command: string): UserError {
  const text = (err as Error).message.split('\n')[0] ?? '';
  const unknown = /^Unknown option '(-{1,2})([^'=]+)/.exec(text);
  if (unknown) {
    const [, dashes, name] = unknown as unknown as [string, string, string];
    const hint = dashes === '--' ? suggestion(name, Object.keys(options), (k) => `--${k}`) : '';
    return new UserError(`unknown option '${dashes}${name}'${hint} (see lockchaos ${command} --help)`);
  }
  const help = `(see lockchaos ${command} --help)`;
  // parseArgs's own wording names its usage syntax ('-t, --ttl <value>'): said here as the flag and its fix.
  const missing = /^Option '(?:-\w, )?--([\w-]+) <value>' argument missing/.exec(text);
  if (missing) return new UserError(`--${missing[1]} needs a value: --${missing[1]} VALUE ${help}`);
  const switchValue = /^Option '(?:-\w, )?--([\w-]+)' does not take an argument/.exec(text);
  if (switchValue) {
    return new UserError(`--${switchValue[1]} is a switch and takes no value: give --${switchValue[1]} alone ${help}`);
  }
  const stray = /^Unexpected argument '(.*)'\. This command does not take positional arguments/.exec(text);
  if (stray) {
    return new UserError(
      `unexpected argument '${stray[1]}': lockchaos ${command} takes options only (a value goes after its --flag) ${help}`,
    );
  }
  return new UserError(`${text.replace(/\. To specify a positional.*$/, '')} ${help}`);
}

/** "1,8,32" → [1, 8, 32]: numbers > 0 (whole with `integer`), or a UserError naming the flag. */
export function numberList(flag: string, text: string, { integer = false } = {}): number[] {
  const items = text.split(',').map((x) => x.trim());
  const numbers = items.map(Number);
  const bad = items.findIndex(
    (x, i) =>
      x === '' ||
      !Number.isFinite(numbers[i]) ||
      (numbers[i] as number) <= 0 ||
      (integer && !Number.isInteger(numbers[i])),
  );
  if (bad >= 0) {
    throw new UserError(
      `--${flag} takes ${integer ? 'whole ' : ''}numbers > 0 separated by commas (e.g. ${integer ? '1,8,32' : '0.5,1,2'}), got '${text}'`,
    );
  }
  if (new Set(numbers).size !== numbers.length) throw new UserError(`--${flag} names a value twice: '${text}'`);
  return numbers;
}

/** "redis,etcd" → ['redis', 'etcd']; empty items or repeats are a UserError. */
export function nameList(flag: string, text: string): string[] {
  const items = text.split(',').map((x) => x.trim());
  if (items.some((x) => x === '')) throw new UserError(`--${flag} takes names separated by commas, got '${text}'`);
  if (new Set(items).size !== items.length) throw new UserError(`--${flag} names a value twice: '${text}'`);
  return items;
}

/** A backend of the registry, or a module's path (docs/adding-a-backend.md); else a UserError. */
export function knownBackend(flag: string, name: string, known: readonly string[]): string {
  if (!known.includes(name) && !isModulePath(name))
    throw new UserError(
      `--${flag}: unknown backend '${name}'${nearestOr(name, known, `choose from ${known.join(', ')}, or give a module's path (./my-lock.mjs)`)}`,
    );
  return name;
}

/** A whole number > 0 (or any number > 0), or a UserError naming the flag. */
export function positiveNumber(flag: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UserError(`--${flag} takes a ${integer ? 'whole ' : ''}number > 0, got '${text}'`);
  }
  return n;
}

/** An on|off flag, off when absent; anything else is a UserError naming the flag. */
export function onOff(flag: string, text: string | undefined): boolean {
  const word = text ?? 'off';
  if (word !== 'on' && word !== 'off') throw new UserError(`--${flag} takes on or off, got '${word}'`);
  return word === 'on';
}

/** A seed: a whole number >= 0, the fallback when absent; else a UserError. */
export function seedOf(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const seed = Number(text);
  if (text.trim() === '' || !Number.isInteger(seed) || seed < 0) {
    throw new UserError(`--seed takes a whole number >= 0, got '${text}'`);
  }
  return seed;
}
