/**
 * A run's cluster on a target: the lock service's nodes are the inventory's, reached where
 * they are, and only the data store (the witness, not the system under test) is a container
 * lockchaos starts. Its phases: record the run in the ledger (so that a killed runner's
 * traces can be undone), open each control channel and check that it does what the run's
 * faults need, start the store, wait for the service to answer; at the end, heal every node
 * (rules, stopped and killed processes) and close the channels.
 */
import { readWarp } from '../cluster/clock-warp.js';
import type { Cluster, NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { startCluster } from '../cluster/cluster.js';
import { docker } from '../cluster/docker-engine.js';
import { ownerLabel } from '../cluster/labels.js';
import { untilAborted } from '../util/deadline.js';
import { errorMessage, UserError } from '../util/errors.js';
import { HEARTBEAT_S } from './commands.js';
import { removeContainerRules } from './heal.js';
import { describeNode, type Inventory, type NodeNeed, type TargetNode } from './inventory.js';
import { Ledger } from './ledger.js';
import { checkServicePort, serviceNotReady } from './service-port.js';
import { SshHost } from './ssh.js';
import { readyHostClock } from './ssh-clock.js';
import { sshReason } from './ssh-reason.js';
import { DockerTargetNode, type Ready, SshNode, UncontrolledNode } from './target-node.js';

/** A target's cluster: a Cluster whose close() heals and lets go of the nodes, and says what it could not heal. */
export interface TargetCluster extends Cluster {
  close(): Promise<readonly string[]>;
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
  return new SshNode(node, ready, new SshHost(c), runId, (pid, warped) => ledger.markWarped(node.name, pid, warped));
}

/**
 * Readies a node for node-clock before the run starts (a host: checked, the helper copied
 * and tried on the service; a container of this engine: its host pids seen and read from
 * here); a UserError naming the node, what stands in the way and the fix.
 */
async function readyClock(file: string, node: NodeHandle, target: TargetNode): Promise<void> {
  let why: string | undefined;
  if (node instanceof SshNode) why = await readyHostClock(node.host, node.scripts);
  else if (node instanceof DockerTargetNode) {
    const pids = await node.hostPids().catch(() => []);
    if (pids.length === 0)
      why =
        "the container's processes are not visible to this runner by their host pids (it runs in a pid namespace of its own, a container, or the container is stopped): run lockchaos on the engine's host";
    else
      why = await readWarp(pids[0] as number).then(
        () => undefined,
        (err) => `clock-warp cannot read the container's process ${pids[0]} from here (${errorMessage(err)})`,
      );
  }
  if (why) throw unreachable(file, target, `node-clock: ${why}`);
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
  let heartbeat: NodeJS.Timeout | undefined;
  /** The hosts the run has begun to write on (its record first): the ones a heal must reach. */
  const written = new Set<SshNode>();
  const close = async (): Promise<string[]> => {
    clearInterval(heartbeat);
    // A host whose probe failed (no ssh, a changed key) was only read: nothing to undo there,
    // and a heal that cannot reach it must not keep the run's entry for ever.
    const left = await Promise.all(
      nodes.map((n) => (n instanceof SshNode && !written.has(n) ? undefined : healNode(n, runId))),
    );
    await Promise.all(nodes.map((n) => (n instanceof SshNode ? n.host.close() : undefined)));
    const problems = left.filter((p): p is string => p !== undefined);
    // Kept while something is left: the next start (or `cleanup`) tries again.
    if (problems.length === 0) ledger.remove();
    return problems;
  };
  try {
    for (const [i, target] of inventory.nodes.entries()) {
      opts.signal?.throwIfAborted();
      const node = await openNode(inventory.path, target, opts.ready[i] as Ready, runId, ledger);
      nodes.push(node);
      await probe(inventory.path, node, target, opts.needs);
      if (node instanceof SshNode) {
        written.add(node);
        await recordRun(inventory.path, node, target);
      }
      if (opts.needs.has('clock')) await readyClock(inventory.path, node, target);
    }
    // The clients dial each node from here: a port nothing listens on is said now, by name.
    await Promise.all(inventory.nodes.map((t) => checkServicePort(inventory.path, t, opts.signal)));
    // A run that goes touches its records; a cleanup from another machine tells it so from one left behind.
    heartbeat = setInterval(() => {
      for (const n of nodes) if (n instanceof SshNode) n.heartbeat().catch(() => undefined);
    }, HEARTBEAT_S * 1000);
    heartbeat.unref();
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

/** The run's record on a host, before any fault reaches it; a UserError naming the host when it cannot be kept. */
async function recordRun(file: string, node: SshNode, target: TargetNode): Promise<void> {
  try {
    await node.record(ownerLabel());
  } catch (err) {
    throw unreachable(file, target, `the run's record not kept on the host (${errorMessage(err)})`);
  }
}

/**
 * Undoes what the run did on one node (a host's traces by its heal script, which checks
 * its effect; a container's by the engine): what is left, in a line naming the node.
 */
async function healNode(node: NodeHandle, runId: string): Promise<string | undefined> {
  try {
    if (node instanceof SshNode) {
      const left = await node.heal();
      return left === undefined ? undefined : `${describeNode(node.target)}: ${left}`;
    }
    if (node instanceof DockerTargetNode) {
      await removeContainerRules(runId, (cmd) => node.netExec(cmd));
      await node.removeNetHelper();
    }
  } catch (err) {
    return `${node.name}: not healed: ${errorMessage(err).split('\n')[0]}`;
  }
  return undefined;
}
