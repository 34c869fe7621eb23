import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package's root folder (where package.json is), from sources or from dist/ alike. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('lockchaos: cannot find its package.json');
    dir = up;
  }
  return dir;
})();

/**
 * How a user types the command, for the commands pages print: `npx lockchaos` where the
 * package is installed as a dependency (under node_modules/), `lockchaos` from a checkout
 * (where `npm link` puts it on the PATH).
 */
export const cliCommandFor = (root: string): string =>
  root.split(/[\\/]/).includes('node_modules') ? 'npx lockchaos' : 'lockchaos';

export const cliCommand: string = cliCommandFor(packageRoot);

/**
 * The compiled module `file` that a worker thread runs, next to the module at `here`
 * (its import.meta.url): beside it in dist/, or, when `here` is a TypeScript source (the
 * tests), at the same place under dist/. Undefined when it was never built.
 */
export function compiledBeside(here: string, file: string): URL | undefined {
  const beside = fileURLToPath(new URL(file, here));
  const found = [beside, join(packageRoot, 'dist', relative(packageRoot, beside))].find((p) => existsSync(p));
  return found === undefined ? undefined : pathToFileURL(found);
}

/**
 * Where a runner keeps what must be undone even when it is killed (the target ledger, the
 * clock warps): $LOCKCHAOS_STATE_DIR, else ~/.local/state/lockchaos (XDG's state home).
 */
export function stateDir(): string {
  return (
    process.env.LOCKCHAOS_STATE_DIR ?? join(process.env.XDG_STATE_HOME ?? join(homedir(), '.local/state'), 'lockchaos')
  );
}
