import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
