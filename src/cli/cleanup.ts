/** `lockchaos cleanup`: remove what lockchaos runs left behind (by label). */
import { parseArgs } from 'node:util';
import { ensureEngine } from '../cluster/docker-engine.js';
import { reclaimOrphans } from '../cluster/reclaim.js';
import { reclaimTargets } from '../target/heal.js';
import { argsError } from './args.js';

const HELP = `Usage: lockchaos cleanup [--all]

Removes every container and network labelled by a lockchaos run whose runner process is
gone, and ends its client workers and what their client programs left running (the
programs' cgroups, where cgroup v2 is writable). On the targets of such runs (--target:
hosts over SSH, existing containers) it removes the run's iptables rules, resumes what it
stopped and starts what it killed. Every run does this at start too. A network the engine
still counts an endpoint in (a container someone else attached to it, or a stale endpoint
that only a restart of dockerd clears) is not removed: it is counted and named.

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
  // The targets first: healing an existing container's rules takes a helper of the run's.
  const healed = await reclaimTargets(values.all ? 'all' : 'orphaned');
  const removed = await reclaimOrphans(values.all ? 'all' : 'orphaned');
  // A network left in use is counted on the same line, so that a check of the line sees it.
  const inUse = removed.inUse.length > 0 ? `, ${removed.inUse.length} networks left in use` : '';
  console.log(
    `removed ${removed.containers.length} containers, ${removed.networks.length} networks, ${removed.workers} client workers, ${removed.cgroups} client program cgroups, ${healed.runs} targets healed${inUse}`,
  );
  for (const name of removed.inUse) {
    console.error(
      `not removed: network ${name}: the engine counts an endpoint in it with its run's containers gone (a container attached by someone else, or a stale endpoint, which a restart of dockerd clears); see docker network inspect ${name}`,
    );
  }
  for (const problem of healed.problems) console.error(`not healed (tried again at the next start): ${problem}`);
  return 0;
}
