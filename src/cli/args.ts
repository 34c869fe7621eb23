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
