/** `lockchaos cleanup`: remove what lockchaos runs left behind (by label), and heal targets' hosts. */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureEngine } from '../cluster/docker-engine.js';
import { reclaimOrphans } from '../cluster/reclaim.js';
import { STALE_S } from '../target/commands.js';
import { healHosts, reclaimTargets } from '../target/heal.js';
import { readInventory } from '../target/inventory.js';
import { argsError } from './args.js';

/** The exit code when something is left that could not be healed (not 3: that is bad input). */
export const EXIT_LEFT = 1;

const HELP = `Usage: lockchaos cleanup [--target FILE] [--all]

Removes every container and network labelled by a lockchaos run whose runner process is
gone, and ends its client workers and what their client programs left running (the
programs' cgroups, where cgroup v2 is writable). On the targets of such runs (a run's
--target: hosts over SSH, existing containers) it removes the run's iptables rules, resumes what it
stopped, restores the clocks it warped and starts what it killed, and checks that it took. Every run does this at start
too. A network the engine still counts an endpoint in (a container someone else attached
to it, or a stale endpoint that only a restart of dockerd clears) is not removed: it is
counted and named.

Those targets are known from this machine's own record of its runs. With --target, the
inventory's hosts are read as well, and every run's leftovers found there are healed,
whichever machine ran it (a CI job's container killed with its record): all but runs
still going, which are a run of this machine's whose runner lives, or another machine's
that touched its record on the host in the last ${STALE_S} s (one heard from lately is
watched until then, so a cleanup right after a kill still heals it).

Exit code: 0 when everything found was healed or removed, ${EXIT_LEFT} when something could
not be healed (named on stderr, with what is left), 3 for bad input.

Options:
  --target FILE  also heal the hosts of this inventory (any run's leftovers there)
  --all          also remove (and heal) the resources of runs that are still going
  -h, --help     this help`;

export async function cleanupCommand(argv: string[]): Promise<number> {
  const options = {
    all: { type: 'boolean' },
    target: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  let values: { all?: boolean; target?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options }));
  } catch (err) {
    throw argsError(err, options, 'cleanup');
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const which = values.all ? 'all' : 'orphaned';
  // Read first: a bad inventory is refused before anything is touched.
  const inventory =
    values.target === undefined ? undefined : readInventory(resolve(values.target), { backend: '', port: 0 });
  await ensureEngine();
  // The targets first: healing an existing container's rules takes a helper of the run's.
  const healed = await reclaimTargets(which);
  const hosts = inventory ? await healHosts(inventory, which) : { runs: 0, problems: [], live: [], clocks: 0 };
  const removed = await reclaimOrphans(which);
  // A network left in use is counted on the same line, so that a check of the line sees it.
  const inUse = removed.inUse.length > 0 ? `, ${removed.inUse.length} networks left in use` : '';
  console.log(
    `removed ${removed.containers.length} containers, ${removed.networks.length} networks, ${removed.workers} client workers, ${removed.cgroups} client program cgroups, ${removed.clocks + healed.clocks + hosts.clocks} warped clocks restored, ${healed.runs + hosts.runs} targets healed${inUse}`,
  );
  for (const name of removed.inUse) {
    console.error(
      `not removed: network ${name}: the engine counts an endpoint in it with its run's containers gone (a container attached by someone else, or a stale endpoint, which a restart of dockerd clears); see docker network inspect ${name}`,
    );
  }
  const problems = [...healed.problems, ...hosts.problems, ...removed.clockProblems];
  for (const problem of problems) console.error(`not healed (tried again at the next start or cleanup): ${problem}`);
  for (const live of hosts.live) console.error(`left alone: ${live}`);
  return problems.length > 0 ? EXIT_LEFT : 0;
}
