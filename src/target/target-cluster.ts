/**
 * A run's cluster on a target: the lock service's nodes are the inventory's, reached where
 * they are, and only the data store (the witness, not the system under test) is a container
 * lockchaos starts. Its phases: record the run in the ledger (so that a killed runner's
 * traces can be undone), open each control channel and check that it does what the run's
 * faults need, start the store, wait for the service to answer; at the end, heal every node
 * (rules, stopped and killed processes) and close the channels.
 */
import type { Cluster, NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { startCluster } from '../cluster/cluster.js';
import { docker } from '../cluster/docker-engine.js';
import { untilAborted } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';
import { removeContainerRules } from './heal.js';
import { describeNode, type Inventory, type NodeNeed, type TargetNode } from './inventory.js';
import { Ledger } from './ledger.js';
import { checkServicePort, serviceNotReady } from './service-port.js';
import { SshHost } from './ssh.js';
import { sshReason } from './ssh-reason.js';
import { DockerTargetNode, type Ready, SshNode, UncontrolledNode } from './target-node.js';

/** A target's cluster: a Cluster whose close() heals and lets go of the nodes. */
export interface TargetCluster extends Cluster {
  close(): Promise<void>;
}

/** A first line of a channel's failure, and what to check, as one UserError naming the file and the node. */
function unreachable(file: string, node: TargetNode, why: string): UserError {
  return new UserError(`--target ${file}: ${describeNode(node)}: ${why.trim().split('\n')[0] || 'no answer'}`);
}

async function openNode(
  file: string,
  node: TargetNode,
  ready: Ready,
  runId: string,
  ledger: Ledger,
): Promise<NodeHandle> {
  const c = node.control;
  if (c.kind === 'none') return new UncontrolledNode(node, ready);
  if (c.kind === 'docker') {
    let id: string;
    try {
      id = (await docker().getContainer(c.container).inspect()).Id;
    } catch (err) {
      throw unreachable(
        file,
        node,
        `no container '${c.container}' on this engine (${errorMessage(err)}): name a running container`,
      );
    }
    return new (class extends DockerTargetNode {
      override async signal(signal: string) {
        if (signal === 'SIGKILL') ledger.markKilled(node.name, true);
        await super.signal(signal);
      }
      override async restart() {
        await super.restart();
        ledger.markKilled(node.name, false);
      }
    })(node, ready, id, runId);
  }
  return new SshNode(node, ready, new SshHost(c), runId);
}

/** Checks, on each node, what the run's faults will do there; a UserError naming the first that cannot. */
async function probe(file: string, node: NodeHandle, target: TargetNode, needs: ReadonlySet<NodeNeed>) {
  if (!(node instanceof SshNode)) return;
  const { scripts } = node;
  const hello = await node.host.run('true');
  if (hello.exitCode !== 0)
    throw unreachable(file, target, `ssh failed: ${sshReason(hello.output, node.host.channel)}`);
  if (needs.has('process')) {
    const r = await node.host.run(scripts.probe);
    if (r.exitCode !== 0)
      throw unreachable(
        file,
        target,
        `${r.output.trim()}: set commands.process to a command that prints the service's pids`,
      );
  }
  if (needs.has('network')) {
    const r = await node.host.run(scripts.canIptables);
    if (r.exitCode !== 0)
      throw unreachable(
        file,
        target,
        `iptables cannot run there (${r.output.trim()}): log in as root, set ssh.sudo, or commands.path`,
      );
  }
}

export async function startTargetCluster(opts: {
  runId: string;
  inventory: Inventory;
  /** The backend's readiness for each of the inventory's nodes, in order. */
  ready: Ready[];
  /** The data store's spec: the one container of the run. */
  store: NodeSpec;
  needs: ReadonlySet<NodeNeed>;
  signal?: AbortSignal;
}): Promise<TargetCluster> {
  const { runId, inventory } = opts;
  const ledger = new Ledger(runId, inventory.nodes);
  ledger.save();
  const nodes: NodeHandle[] = [];
  let storeCluster: Cluster | undefined;
  const close = async () => {
    await Promise.all(nodes.map((n) => healNode(n, runId).catch(() => undefined)));
    await Promise.all(nodes.map((n) => (n instanceof SshNode ? n.host.close() : undefined)));
    ledger.remove();
  };
  try {
    for (const [i, target] of inventory.nodes.entries()) {
      opts.signal?.throwIfAborted();
      const node = await openNode(inventory.path, target, opts.ready[i] as Ready, runId, ledger);
      nodes.push(node);
      await probe(inventory.path, node, target, opts.needs);
    }
    // The clients dial each node from here: a port nothing listens on is said now, by name.
    await Promise.all(inventory.nodes.map((t) => checkServicePort(inventory.path, t, opts.signal)));
    storeCluster = await startCluster(runId, [opts.store], opts.signal);
    await untilAborted(
      Promise.all(
        nodes.map((n, i) =>
          (opts.ready[i] as Ready)(n, { restart: false }).catch((err) => {
            throw serviceNotReady(inventory.path, inventory.nodes[i] as TargetNode, errorMessage(err));
          }),
        ),
      ),
      opts.signal,
    );
  } catch (err) {
    await close();
    throw err;
  }
  const all = [...nodes, ...storeCluster.nodes];
  const store = storeCluster;
  return {
    runId,
    networkName: store.networkName,
    nodes: all,
    node(name: string) {
      const n = all.find((x) => x.name === name);
      if (!n) throw new Error(`no node named ${name} in run ${runId}`);
      return n;
    },
    async collectLogs() {
      const out = await store.collectLogs();
      await Promise.all(
        nodes.map(async (n) => {
          out[n.name] = await n.logs().catch((err) => `(log unavailable: ${errorMessage(err)})`);
        }),
      );
      return out;
    },
    close,
  };
}

/** Undoes what the run did on one node: a host's traces by its heal script; a container's by the engine. */
async function healNode(node: NodeHandle, runId: string): Promise<void> {
  if (node instanceof SshNode) {
    const r = await node.heal();
    if (r.exitCode !== 0) throw new Error(`${node.name}: heal failed: ${r.output.trim()}`);
  } else if (node instanceof DockerTargetNode) {
    await removeContainerRules(runId, (cmd) => node.netExec(cmd));
    await node.removeNetHelper();
  }
}
