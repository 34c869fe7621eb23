/**
 * A cluster: one bridge network per run and the nodes on it, each a container of the node
 * image with a server as PID 1 (so that a signal to the container reaches the server).
 * Containers are created and handled with dockerode (the engine's API); everything
 * is labelled with the run id (labels.ts) and removed by `stop()`.
 */
import { untilAborted } from '../util/deadline.js';
import { reachNetwork } from './client-path.js';
import { type ClockWarper, processesInCgroupOf } from './clock-warp.js';
import { docker, NODE_IMAGE } from './docker-engine.js';
import { demuxLogs, type ExecResult, execInContainer } from './exec.js';
import { runLabels } from './labels.js';
import { NetnsHelper } from './netns.js';

export interface NodeSpec {
  /** Short name, unique in the run: "redis-1", "store". */
  name: string;
  /**
   * The image: any local or registry image (default: lockchaos's node image). Network
   * faults need nothing inside it (they run from a helper container in the node's network
   * namespace); pause and kill need nothing either.
   */
  image?: string;
  /** The user the server runs as (default: the image's). */
  user?: string;
  /** What the node is for, recorded as a label: "node" (system under test) or "store". */
  role: 'node' | 'store';
  /** The port clients connect to (proxied by the latency and client-cut faults). */
  port: number;
  /**
   * The server's argv, run as PID 1 (lockchaos's images have no default command; another
   * image's own is used when this is absent). As a function it gets the names by which the
   * other nodes of the run resolve on its network (for servers that bootstrap from a static
   * peer list, like etcd and ZooKeeper).
   */
  command?: string[] | ((peers: PeerNames) => string[]);
  env?: Record<string, string>;
  /**
   * Resolves when the server answers; rejects after its own deadline. `start.restart`: the
   * node is back from a kill (restart()), not at the cluster's first start.
   */
  ready: (node: NodeHandle, start?: { restart: boolean }) => Promise<void>;
  /** How long a module backend's ready() may take before the run gives up (default 60 s). */
  readyTimeoutMs?: number;
}

export interface PeerNames {
  /** The DNS name of the run's node called `name`, resolvable from every node. */
  host(name: string): string;
}

export { type ExecResult, execInContainer } from './exec.js';

/** What the nemesis and the backends may do with a node. */
export interface NodeHandle {
  readonly name: string;
  readonly role: 'node' | 'store';
  /** The node's address on the run's bridge network (reachable from the host). */
  readonly ip: string;
  /** The port clients connect to. */
  readonly port: number;
  readonly containerId: string;
  /**
   * Runs a command in the node's network namespace from a helper container of the node
   * image (iptables, ip): works on any image, also one with no shell and no iptables.
   */
  netExec(command: string[]): Promise<ExecResult>;
  exec(command: string[]): Promise<ExecResult>;
  /**
   * The address the other nodes reach it at, where it is not `ip` (a target's node behind
   * another address): partition rules drop by it.
   */
  readonly peerIp?: string;
  /**
   * Rules on this node must touch only the service's own traffic (a host the team runs:
   * loss drops packets to its port, not to the host's SSH).
   */
  readonly confined?: boolean;
  /**
   * Freezes the node's service (the container's cgroup freezer; a target's processes by
   * SIGSTOP): the server stops answering. What it stopped, where it can tell: pid → state.
   */
  pause(): Promise<PauseRecord | undefined>;
  resume(): Promise<void>;
  /** Sends a signal to PID 1, the server. */
  signal(signal: string): Promise<void>;
  /** The container as the engine sees it: running, and when its server last started. */
  state(): Promise<NodeState>;
  /** Starts the container again after a kill; waits for readiness. */
  restart(): Promise<void>;
  /**
   * The host pids of the node's processes, where this runner can ptrace them (node-clock
   * warps their clocks): a container of the engine on this host. Absent for a node the
   * run reaches through a channel (a target's host).
   */
  hostPids?(): Promise<number[]>;
  /**
   * Where its processes' clocks are warped when not by this machine's helper on hostPids
   * (a target's host over SSH: the helper runs there).
   */
  readonly clockWarp?: ClockWarper;
  logs(): Promise<string>;
}

/** The processes a pause stopped, pid → the state letter the host then showed ('T': stopped). */
export type PauseRecord = Record<string, string>;

export interface NodeState {
  running: boolean;
  /** When the container's process last started (the engine's RFC 3339 time). */
  startedAt: string;
  exitCode: number;
  /** Whether it is attached to the run's network (not, after a `docker network disconnect`). */
  onNetwork?: boolean;
}

export interface Cluster {
  readonly runId: string;
  readonly networkName: string;
  readonly nodes: NodeHandle[];
  node(name: string): NodeHandle;
  /** Writes nothing; returns each node's log, for nodes/*.log. */
  collectLogs(): Promise<Record<string, string>>;
  /**
   * Lets go of nodes the run did not create (a target's: heals them, closes their channels);
   * absent when removing the run's labelled containers is all there is to do. Resolves to
   * what it could not undo, a line per node naming it and what is left (none: all healed).
   */
  close?(): Promise<readonly string[]>;
  /**
   * Gives the nodes the engine's full CPU weight (CPU_SHARES.running) once their cell's
   * workload may run; absent for nodes lockchaos did not start.
   */
  claimCpu?(): Promise<void>;
}

/**
 * The CPU weight of a cluster's containers (docker's cpu-shares; the engine's default is
 * 1024). A campaign starts the next cells' clusters while others run their workloads; on
 * a small machine their starts (a ZooKeeper ensemble's JVMs) took the CPU the running
 * workloads' timing needs: seen as a store read stalled past a 1 s lease, and the lock's
 * overlap that followed, in a cell that is valid on a machine at rest. Started ahead, a
 * cluster yields; its workload's slot taken, it weighs as much as any.
 */
export const CPU_SHARES = { ahead: 128, running: 1024 } as const;

/**
 * A node that is a container on this engine: lockchaos's own (on the run's network), or an
 * existing one a target names (networkName undefined: not lockchaos's to check or re-address).
 */
export class ContainerNode implements NodeHandle {
  private readonly net: NetnsHelper;
  constructor(
    readonly spec: Pick<NodeSpec, 'name' | 'role' | 'port' | 'ready'>,
    readonly containerId: string,
    public ip: string,
    readonly networkName: string | undefined,
    runId: string,
  ) {
    this.net = new NetnsHelper(runId, spec.name, containerId);
  }

  get name() {
    return this.spec.name;
  }
  get role() {
    return this.spec.role;
  }
  get port() {
    return this.spec.port;
  }
  private get container() {
    return docker().getContainer(this.containerId);
  }

  exec(command: string[]): Promise<ExecResult> {
    return execInContainer(this.containerId, command);
  }
  netExec(command: string[]): Promise<ExecResult> {
    return this.net.exec(command);
  }

  async pause() {
    await this.container.pause();
    return undefined;
  }
  async resume() {
    await this.container.unpause();
  }
  async signal(signal: string) {
    await this.container.kill({ signal });
  }
  /** The container's processes by their host pids: its PID 1's and every process in its cgroup. */
  async hostPids(): Promise<number[]> {
    const { State } = await this.container.inspect();
    // The engine's pid is the host's: where this runner sees another pid namespace (it runs
    // in a container), that pid is someone else's, and its cgroup does not name the container.
    return State.Running && State.Pid > 0 ? processesInCgroupOf(State.Pid, this.containerId) : [];
  }
  async state(): Promise<NodeState> {
    const { State, NetworkSettings } = await this.container.inspect();
    const onNetwork =
      this.networkName === undefined ? undefined : NetworkSettings.Networks[this.networkName] !== undefined;
    return { running: State.Running, startedAt: State.StartedAt, exitCode: State.ExitCode, onNetwork };
  }
  async restart() {
    const state = (await this.container.inspect()).State;
    if (state.Paused) await this.container.unpause();
    // A started container gets a new network namespace: the helper's is gone with the old.
    if (!state.Running) {
      await this.net.remove();
      await this.container.start();
    }
    if (this.networkName !== undefined) {
      const info = await this.container.inspect();
      this.ip = info.NetworkSettings.Networks[this.networkName]?.IPAddress ?? this.ip;
    }
    await this.spec.ready(this, { restart: true });
  }
  async logs() {
    const buf = (await this.container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    return demuxLogs(buf);
  }
  /** Removes the network helper (its rules gone with a heal): a container the run leaves standing. */
  removeNetHelper() {
    return this.net.remove();
  }
}

/**
 * Starts the nodes in parallel on a fresh labelled network and waits until each is ready.
 * The caller removes everything (also after a failed start) with removeResources({ runId }).
 */
export async function startCluster(
  runId: string,
  specs: readonly NodeSpec[],
  signal?: AbortSignal,
  /** Started ahead of its workload (a campaign's cell): the containers yield the CPU until claimCpu(). */
  ahead = false,
): Promise<Cluster> {
  const networkName = `lockchaos-${runId}`;
  await docker().createNetwork({
    Name: networkName,
    Driver: 'bridge',
    CheckDuplicate: true,
    Labels: runLabels(runId, 'network'),
  });
  // From inside a container, this process joins the network to reach the nodes.
  await reachNetwork(networkName);
  // Docker's DNS on a user-defined network resolves container names.
  const peers: PeerNames = { host: (name) => `${networkName}-${name}` };
  // Every start settled before this returns or throws (a node's failure, Ctrl-C): a
  // container created after the caller's cleanup would outlive the run.
  const settled = await Promise.allSettled(
    specs.map(async (spec) => {
      // No capabilities: network faults come from a helper container (netns.ts).
      const command = typeof spec.command === 'function' ? spec.command(peers) : spec.command;
      signal?.throwIfAborted();
      const container = await docker().createContainer({
        Image: spec.image ?? NODE_IMAGE,
        name: peers.host(spec.name),
        Hostname: spec.name,
        Env: Object.entries(spec.env ?? {}).map(([k, v]) => `${k}=${v}`),
        Labels: runLabels(runId, spec.role),
        ...(command ? { Cmd: command } : {}),
        ...(spec.user ? { User: spec.user } : {}),
        HostConfig: { NetworkMode: networkName, ...(ahead ? { CpuShares: CPU_SHARES.ahead } : {}) },
      });
      await container.start();
      signal?.throwIfAborted();
      const ip = (await container.inspect()).NetworkSettings.Networks[networkName]?.IPAddress ?? '';
      const node = new ContainerNode(spec, container.id, ip, networkName, runId);
      await untilAborted(spec.ready(node, { restart: false }), signal);
      return node;
    }),
  );
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  const nodes = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  return {
    runId,
    networkName,
    nodes,
    node(name: string) {
      const n = nodes.find((x) => x.name === name);
      if (!n) throw new Error(`no node named ${name} in run ${runId}`);
      return n;
    },
    async collectLogs() {
      const out: Record<string, string> = {};
      await Promise.all(
        nodes.map(async (n) => {
          out[n.name] = await n.logs().catch((err) => `(log unavailable: ${String(err)})`);
        }),
      );
      return out;
    },
    async claimCpu() {
      if (!ahead) return;
      await Promise.all(
        nodes.map((n) => docker().getContainer(n.containerId).update({ CpuShares: CPU_SHARES.running })),
      );
    },
  };
}
