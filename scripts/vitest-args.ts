/**
 * What npm test's arguments ask of vitest, read by vitest's own parser: whether they choose
 * the files to run themselves (a project, file filters). A list of the flags that take a
 * value, kept here, would take the value of any flag it lacks (`--shard 1/2`,
 * `--bail 3`) for a file filter; vitest's parser knows its flags.
 */
import { parseCLI } from 'vitest/node';

/**
 * True when `args` (what follows `vitest run`) name a project or file filters, or are for
 * vitest to answer alone (--help, --version, or arguments it refuses): then they go to one
 * plain `vitest run`.
 */
export function choosesFiles(args: readonly string[]): boolean {
  if (args.some((a) => ['-h', '--help', '-v', '--version'].includes(a))) return true;
  let parsed: ReturnType<typeof parseCLI>;
  try {
    parsed = parseCLI(['vitest', 'run', ...args]);
  } catch {
    return true; // vitest itself says what is wrong with them
  }
  return parsed.filter.length > 0 || parsed.options.project !== undefined;
}
