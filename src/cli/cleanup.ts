/** `lockchaos cleanup`: remove what lockchaos runs left behind (by label). */
import { parseArgs } from 'node:util';
import { ensureEngine } from '../cluster/engine.js';
import { reclaimOrphans } from '../cluster/reclaim.js';
import { argsError } from './args.js';

const HELP = `Usage: lockchaos cleanup [--all]

Removes every container and network labelled by a lockchaos run whose runner process is
gone, and ends its client workers and what their client programs left running (the
programs' cgroups, where cgroup v2 is writable). Every run does this at start too.

Options:
  --all       also remove the resources of runs that are still going
  -h, --help  this help`;

export async function cleanupCommand(argv: string[]): Promise<number> {
  let values: { all?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { all: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (err) {
    throw argsError(err, { all: true, help: true }, 'cleanup');
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  await ensureEngine();
  const removed = await reclaimOrphans(values.all ? 'all' : 'orphaned');
  console.log(
    `removed ${removed.containers.length} containers, ${removed.networks.length} networks, ${removed.workers} client workers, ${removed.cgroups} client program cgroups`,
  );
  return 0;
}
