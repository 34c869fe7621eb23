/**
 * A cluster: one bridge network per run and the nodes on it, each a container of the node
 * image with a server as PID 1 (so that a signal to the container reaches the server).
 * Containers are started with testcontainers and handled with its dockerode; everything
 * is labelled with the run id (labels.ts) and removed by `stop()`.
 */
import { GenericContainer, type StartedTestContainer } from 'testcontainers';
import { docker, NODE_IMAGE } from './engine.js';
import { runLabels } from './labels.js';

export interface NodeSpec {
  /** Short name, unique in the run: "redis-1", "store". */
  name: string;
  /** What the node is for, recorded as a label: "node" (system under test) or "store". */
  role: 'node' | 'store';
  /** The port clients connect to (proxied by the latency and client-cut faults). */
  port: number;
  /**
   * The server's argv, run as PID 1 (the image has no default command). As a function it
   * gets the names by which the other nodes of the run resolve on its network (for
   * servers that bootstrap from a static peer list, like etcd and ZooKeeper).
   */
  command: string[] | ((peers: PeerNames) => string[]);
  env?: Record<string, string>;
  /** Resolves when the server answers; rejects after its own deadline. */
  ready: (node: NodeHandle) => Promise<void>;
}

export interface PeerNames {
  /** The DNS name of the run's node called `name`, resolvable from every node. */
  host(name: string): string;
}

export interface ExecResult {
  exitCode: number;
  output: string;
}

/** What the nemesis and the backends may do with a node. */
export interface NodeHandle {
  readonly name: string;
  readonly role: 'node' | 'store';
  /** The node's address on the run's bridge network (reachable from the host). */
  readonly ip: string;
  /** The port clients connect to. */
  readonly port: number;
  readonly containerId: string;
  exec(command: string[]): Promise<ExecResult>;
  /** Freezes every process in the container (cgroup freezer): the server stops answering. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Sends a signal to PID 1, the server. */
  signal(signal: string): Promise<void>;
  /** Starts the container again after a kill; waits for readiness. */
  restart(): Promise<void>;
  logs(): Promise<string>;
}

export interface Cluster {
  readonly runId: string;
  readonly networkName: string;
  readonly nodes: NodeHandle[];
  node(name: string): NodeHandle;
  /** Writes nothing; returns each node's log, for nodes/*.log. */
  collectLogs(): Promise<Record<string, string>>;
}

/** Docker's multiplexed log stream: 8-byte headers (stream, 0, 0, 0, size32) then data. */
function demuxLogs(buf: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Runs a command in a container: its exit code and its output (stdout and stderr). */
export async function execInContainer(containerId: string, command: string[]): Promise<ExecResult> {
  const exec = await docker().getContainer(containerId).exec({ Cmd: command, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? -1, output: demuxLogs(Buffer.concat(chunks)) };
}

class ContainerNode implements NodeHandle {
  constructor(
    readonly spec: NodeSpec,
    readonly started: StartedTestContainer,
    public ip: string,
    readonly networkName: string,
  ) {}

  get name() {
    return this.spec.name;
  }
  get role() {
    return this.spec.role;
  }
  get port() {
    return this.spec.port;
  }
  get containerId() {
    return this.started.getId();
  }
  private get container() {
    return docker().getContainer(this.containerId);
  }

  exec(command: string[]): Promise<ExecResult> {
    return execInContainer(this.containerId, command);
  }

  async pause() {
    await this.container.pause();
  }
  async resume() {
    await this.container.unpause();
  }
  async signal(signal: string) {
    await this.container.kill({ signal });
  }
  async restart() {
    const state = (await this.container.inspect()).State;
    if (state.Paused) await this.container.unpause();
    if (!state.Running) await this.container.start();
    const info = await this.container.inspect();
    this.ip = info.NetworkSettings.Networks[this.networkName]?.IPAddress ?? this.ip;
    await this.spec.ready(this);
  }
  async logs() {
    const buf = (await this.container.logs({ stdout: true, stderr: true, follow: false })) as unknown as Buffer;
    return demuxLogs(buf);
  }
}

/**
 * Starts the nodes in parallel on a fresh labelled network and waits until each is ready.
 * The caller removes everything (also after a failed start) with removeResources({ runId }).
 */
export async function startCluster(runId: string, specs: NodeSpec[]): Promise<Cluster> {
  const networkName = `lockchaos-${runId}`;
  await docker().createNetwork({
    Name: networkName,
    Driver: 'bridge',
    CheckDuplicate: true,
    Labels: runLabels(runId, 'network'),
  });
  // Docker's DNS on a user-defined network resolves container names.
  const peers: PeerNames = { host: (name) => `${networkName}-${name}` };
  const nodes = await Promise.all(
    specs.map(async (spec) => {
      const container = new GenericContainer(NODE_IMAGE)
        .withName(peers.host(spec.name))
        .withHostname(spec.name)
        .withCommand(typeof spec.command === 'function' ? spec.command(peers) : spec.command)
        .withEnvironment(spec.env ?? {})
        .withLabels(runLabels(runId, spec.role))
        .withNetworkMode(networkName)
        // iptables inside the node's namespace, for partitions and packet loss.
        .withAddedCapabilities('NET_ADMIN')
        .withStartupTimeout(30_000);
      const started = await container.start();
      const ip = started.getIpAddress(networkName);
      const node = new ContainerNode(spec, started, ip, networkName);
      await spec.ready(node);
      return node;
    }),
  );
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
  };
}
