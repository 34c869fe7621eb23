/**
 * Undoing a run's traces on a target whose runner is gone: the next start (and `lockchaos
 * cleanup`) heals the nodes of every ledger entry left behind (ledger.ts). A host runs its
 * heal script (the run's rules removed, what it stopped resumed, what it killed started); an
 * existing container is thawed, started again if the run killed it, and its network
 * namespace loses the run's rules.
 */

import { docker } from '../cluster/docker-engine.js';
import type { ExecResult } from '../cluster/exec.js';
import { NetnsHelper } from '../cluster/netns.js';
import { errorMessage } from '../util/errors.js';
import { hostScripts, hostTag } from './commands.js';
import { forgetEntry, type LedgerEntry, orphanedEntries } from './ledger.js';
import { SshHost } from './ssh.js';

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

/** Heals one entry's nodes; the problems met, in words (none: healed, and the entry forgotten). */
async function healEntry(entry: LedgerEntry): Promise<string[]> {
  const problems: string[] = [];
  for (const node of entry.nodes) {
    const c = node.control;
    try {
      if (c.kind === 'ssh') {
        const host = new SshHost(c);
        try {
          const r = await host.run(hostScripts(entry.runId, node.commands).heal);
          if (r.exitCode !== 0) problems.push(`${node.name}: ${r.output.trim().split('\n')[0]}`);
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
  return problems;
}

/**
 * Heals the targets of runs whose runner is gone (or of every run, `all`): how many runs'
 * traces were undone, and what could not be (the entry is kept, to be tried again).
 */
export async function reclaimTargets(
  which: 'orphaned' | 'all' = 'orphaned',
): Promise<{ runs: number; problems: string[] }> {
  let runs = 0;
  const problems: string[] = [];
  for (const entry of orphanedEntries(which)) {
    const found = await healEntry(entry);
    if (found.length === 0) runs++;
    problems.push(...found.map((p) => `run ${entry.runId}: ${p}`));
  }
  return { runs, problems };
}
