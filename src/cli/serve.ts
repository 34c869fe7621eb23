/** `lockchaos serve [--store DIR] [--port N]`: a local page over a store, every night in one place. */
import { existsSync, statSync } from 'node:fs';
import { serveStore } from '../serve/server.js';
import { UserError } from '../util/errors.js';
import { plural } from '../util/plural.js';
import { printable } from '../util/printable.js';
import { parseCommandArgs, positiveNumber } from './args.js';

export const SERVE_HELP = `Usage: lockchaos serve [--store DIR] [--port N]

Serves a page over a store folder as it is on disk, on http://127.0.0.1:PORT/ (this
machine only): every campaign by night with its tally, or running (n of N, elapsed,
about M left), or cut short with the cells that never ran (a campaign whose runner was
killed included); per configuration its outcome night after night as a row of marks
(met, not met, flaky), so a flip shows, each mark a link to that night's runs of it;
every run with its verdict, backend, nemesis, fencing and seed, and for a campaign's
runs the expectation and whether it was met, filterable; links to each run's
report.html and to the campaigns' summary, sweep and bench pages. It reads test.json and
the head of results.json of each run, and rereads only what changed. It answers only a
Host of its own address (127.0.0.1, localhost or [::1] with the port; others get 421),
and its pages run no script from the store (escaped, and a Content-Security-Policy).

Options:
  --store DIR             the store folder (default: store)
  --port N                the port (default 8080; 0 picks a free one)
  -h, --help              this help

It runs until Ctrl-C. Exit codes: 0 stopped, 3 error (no such store, the port in use).`;

const OPTIONS = {
  store: { type: 'string' },
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function serveCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandArgs(argv, OPTIONS, 'serve', { positionals: false });
  if (values.help) {
    console.log(SERVE_HELP);
    return 0;
  }
  const store = (values.store as string | undefined) ?? 'store';
  if (!existsSync(store) || !statSync(store).isDirectory()) {
    throw new UserError(`--store: no such folder '${store}' (lockchaos run and campaign write ./store by default)`);
  }
  const portText = values.port as string | undefined;
  const port = portText === undefined ? 8080 : portText === '0' ? 0 : positiveNumber('port', portText, true);
  if (port > 65535) throw new UserError(`--port takes 0 to 65535, got '${portText}'`);
  let served: Awaited<ReturnType<typeof serveStore>>;
  try {
    served = await serveStore(store, port);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new UserError(`--port ${port} is in use: give another, or --port 0 for any free one`);
    throw err;
  }
  const { runs, campaigns, ms, problems } = served.indexed;
  console.log(
    `serving ${store} (${runs} runs, ${campaigns} campaign folders, read in ${ms} ms) on ${served.url} (Ctrl-C to stop)`,
  );
  if (problems.length > 0) {
    // Skipped folders said once here, and listed on the page.
    console.error(printable(`${plural(problems.length, 'folder')} not shown (listed on the page): ${problems[0]}`));
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await served.close();
  return 0;
}
