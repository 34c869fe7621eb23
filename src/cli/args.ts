import { parseArgs } from 'node:util';
import { UserError } from './errors.js';

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
    throw new UserError(`${(err as Error).message.split('\n')[0]} (see lockchaos ${command} --help)`);
  }
}

/**
 * Ctrl-C (or SIGTERM) for a command that must heal and tear down before it exits: the
 * first aborts the returned signal (with `message` on stderr), a second exits at once
 * (the next run's sweep removes what is left). Call dispose when the work is done.
 */
export function onInterrupt(message: string): { signal: AbortSignal; dispose: () => void } {
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(130);
    console.error(`\n${signal}: ${message} (again to quit at once)`);
    abort.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
