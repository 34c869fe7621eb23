/**
 * Choosing and reaching the nodes a node fault hits: among those no other fault holds
 * paused or dead, and commands in a node's network namespace.
 */
import type { NodeHandle } from '../cluster/cluster.js';
import { sleep } from '../util/monotonic-clock.js';
import type { Rng } from '../util/rng.js';
import type { NodeFaultContext } from './context.js';
import { pickNodes } from './node-choice.js';

const available = (ctx: NodeFaultContext) => ctx.nodes.filter((n) => !ctx.unavailable.has(n.name));

/** The nodes an aim picks (one, minority, majority, all, leader) among the available ones. */
export async function chooseNodes(ctx: NodeFaultContext, aim: string, rng: Rng): Promise<NodeHandle[]> {
  const leader = aim === 'leader' || aim === 'isolate-leader' ? await ctx.leader?.() : undefined;
  const candidates = available(ctx);
  if (candidates.length === 0) return [];
  const names = pickNodes(
    aim,
    candidates.map((n) => n.name),
    rng,
    leader,
  );
  return candidates.filter((n) => names.includes(n.name));
}

/** Waits until no other fault holds the node paused or dead. */
export async function whenAvailable(ctx: NodeFaultContext, node: NodeHandle, deadlineMs = 60_000) {
  for (let waited = 0; ctx.unavailable.has(node.name) && waited < deadlineMs; waited += 50) await sleep(50);
}

/** Runs a command in the node's network namespace (iptables); throws unless it exits 0. */
export async function mustNetExec(node: NodeHandle, command: string[]) {
  const r = await node.netExec(command);
  if (r.exitCode !== 0) throw new Error(`${node.name}: ${command.join(' ')} exited ${r.exitCode}: ${r.output.trim()}`);
  return r.output;
}
