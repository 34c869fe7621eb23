/**
 * Undoing a run's traces on a target whose runner is gone: the next start (and `lockchaos
 * cleanup`) heals the nodes of every ledger entry left behind (ledger.ts). A host runs its
 * heal script (the run's rules removed, what it stopped resumed, what it killed started,
 * each checked); an existing container is thawed, started again if the run killed it, and
 * its network namespace loses the run's rules.
 *
 * A ledger lives on the machine that ran the run, and a CI job's container takes it with it
 * when it is killed. `cleanup --target FILE` reads the hosts themselves instead: each run's
 * record on a host (commands.ts) names its runner and is touched every HEARTBEAT_S while it
 * goes. A run of this machine's is left alone while its runner lives; another machine's
 * while its record was touched in the last STALE_S (one heard from more recently is watched
 * until that much has passed: a runner killed a moment ago is healed, not skipped).
 */

import { hostname } from 'node:os';
import { docker } from '../cluster/docker-engine.js';
import type { ExecResult } from '../cluster/exec.js';
import { ownerAlive } from '../cluster/labels.js';
import { NetnsHelper } from '../cluster/netns.js';
import { errorMessage } from '../util/errors.js';
import { clocksRestored } from './clock-scripts.js';
import { HOST_LISTING, healLeft, hostScripts, hostTag, listedRuns, STALE_S } from './commands.js';
import { describeNode, type Inventory, type SshChannel, type TargetNode } from './inventory.js';
import { forgetEntry, type LedgerEntry, orphanedEntries } from './ledger.js';
import { SshHost } from './ssh.js';
import { helperForHeal } from './ssh-clock.js';

/** Removes the run's rules from a container's network namespace (through `netExec`, a helper in it). */
export async function removeContainerRules(
  runId: string,
  netExec: (command: string[]) => Promise<ExecResult>,
): Promise<void> {
  const tag = hostTag(runId);
  const r = await netExec([
    'bash',
    '-c',
    `iptables-save | grep -q -- '${tag}' && iptables-save | grep -v -- '${tag}' | iptables-restore; true`,
  ]);
  if (r.exitCode !== 0) throw new Error(`rules of ${tag} not removed: ${r.output.trim()}`);
}

/**
 * Runs a run's heal script on a host (its clocks' helper copied again first where a warp is
 * recorded and it is gone, or `clocks` says one was): what is left, and how many processes
 * got their true clock back.
 */
async function healOnHost(
  host: SshHost,
  runId: string,
  node: TargetNode,
  clocks: boolean,
): Promise<{ left?: string; clocks: number }> {
  const scripts = hostScripts(runId, node.commands);
  if (clocks) await helperForHeal(host, scripts);
  const r = await host.run(scripts.heal);
  return { left: healLeft(r), clocks: clocksRestored(r.output) };
}

/** Heals one entry's nodes; the problems met, in words (none: healed, and the entry forgotten), and the clocks restored. */
async function healEntry(entry: LedgerEntry): Promise<{ problems: string[]; clocks: number }> {
  const problems: string[] = [];
  let clocks = 0;
  for (const node of entry.nodes) {
    const c = node.control;
    try {
      if (c.kind === 'ssh') {
        const host = new SshHost(c);
        try {
          const warped = entry.warped.some((w) => w.node === node.name);
          const healed = await healOnHost(host, entry.runId, node, warped);
          clocks += healed.clocks;
          if (healed.left) problems.push(`${describeNode(node)}: ${healed.left}`);
        } finally {
          await host.close();
        }
      } else if (c.kind === 'docker') {
        const container = docker().getContainer(c.container);
        const { State, Id } = await container.inspect();
        if (State.Paused) await container.unpause();
        if (!State.Running && entry.killed.includes(node.name)) await container.start();
        const helper = new NetnsHelper(entry.runId, `${node.name}-heal`, Id);
        try {
          await removeContainerRules(entry.runId, (cmd) => helper.exec(cmd));
        } finally {
          await helper.remove();
        }
      }
    } catch (err) {
      problems.push(`${node.name}: ${errorMessage(err).split('\n')[0]}`);
    }
  }
  if (problems.length === 0) forgetEntry(entry.runId);
  return { problems, clocks };
}

/**
 * Heals the targets of runs whose runner is gone (or of every run, `all`): how many runs'
 * traces were undone, and what could not be (the entry is kept, to be tried again).
 */
export async function reclaimTargets(
  which: 'orphaned' | 'all' = 'orphaned',
): Promise<{ runs: number; problems: string[]; clocks: number }> {
  let runs = 0;
  let clocks = 0;
  const problems: string[] = [];
  for (const entry of orphanedEntries(which)) {
    const found = await healEntry(entry);
    if (found.problems.length === 0) runs++;
    clocks += found.clocks;
    problems.push(...found.problems.map((p) => `run ${entry.runId}: ${p}`));
  }
  return { runs, problems, clocks };
}

/** What `cleanup --target` did on an inventory's hosts. */
export interface HostsHealed {
  /** Runs whose traces were undone on a host (a run on two hosts counts twice). */
  runs: number;
  /** What could not be undone, or a host not reached: a line each. */
  problems: string[];
  /** Runs still going, left alone: a line each. */
  live: string[];
  /** Processes whose clock a run had warped, given true time again. */
  clocks: number;
}

/** How a run found on a host is taken: healed now, watched a while (heard from lately), or left alone. */
export function judgeRun(run: { ageS?: number; owner?: string }, which: 'orphaned' | 'all'): 'heal' | 'watch' | 'live' {
  if (which === 'all' || run.owner === undefined) return 'heal';
  if (run.owner.split(':')[0] === hostname()) return ownerAlive(run.owner) ? 'live' : 'heal';
  return (run.ageS ?? 0) <= STALE_S ? 'watch' : 'heal';
}

/**
 * Heals every run's leftovers on the inventory's hosts (ssh nodes), whichever machine ran
 * it, but runs still going (`all`: those too).
 */
export async function healHosts(inventory: Inventory, which: 'orphaned' | 'all' = 'orphaned'): Promise<HostsHealed> {
  const done: HostsHealed = { runs: 0, problems: [], live: [], clocks: 0 };
  // One host reached once, with the first of its nodes' commands (a run's record names its own).
  const hosts = new Map<string, TargetNode & { control: SshChannel }>();
  for (const node of inventory.nodes) {
    const c = node.control;
    if (c.kind !== 'ssh') continue;
    const key = `${c.user}@${c.host}:${c.port}`;
    if (!hosts.has(key)) hosts.set(key, { ...node, control: c });
  }
  await Promise.all([...hosts.values()].map((node) => healHost(node, which, done)));
  return done;
}

async function healHost(node: TargetNode & { control: SshChannel }, which: 'orphaned' | 'all', done: HostsHealed) {
  const host = new SshHost(node.control);
  const where = describeNode(node);
  const list = async () => {
    const r = await host.run(HOST_LISTING);
    if (r.exitCode !== 0) throw new Error(r.output.trim().split('\n').pop() || `exit ${r.exitCode}`);
    return listedRuns(r.output);
  };
  const heal = async (runId: string) => {
    const { left, clocks } = await healOnHost(host, runId, node, true);
    done.clocks += clocks;
    if (left) done.problems.push(`run ${runId} on ${where}: ${left}`);
    else done.runs++;
  };
  try {
    let runs = await list();
    const watched = runs.filter((r) => judgeRun(r, which) === 'watch');
    if (watched.length > 0) {
      // Long enough that a live runner has touched its record since.
      const youngest = Math.min(...watched.map((r) => r.ageS ?? 0));
      await new Promise((r) => setTimeout(r, (STALE_S - Math.max(0, youngest) + 2) * 1000));
      const again = new Map((await list()).map((r) => [r.runId, r]));
      runs = runs.filter((r) => again.has(r.runId)).map((r) => again.get(r.runId) as typeof r);
    }
    for (const run of runs) {
      const how = judgeRun(run, which);
      if (how === 'heal') await heal(run.runId);
      else
        done.live.push(
          `run ${run.runId} on ${where}: still going (runner ${run.owner}, heard from ${run.ageS} s ago): --all heals it too`,
        );
    }
  } catch (err) {
    done.problems.push(`${where}: not read: ${errorMessage(err).split('\n')[0]}`);
  } finally {
    await host.close();
  }
}
