/**
 * A target's node as the nemesis and the backends see it (NodeHandle), by its control
 * channel: a host over SSH (the service's processes found by the inventory's `process`
 * command, stopped and killed by signal, started by its `start` command, rules by the
 * host's iptables), an existing container (the engine's pause, kill and start; rules from a
 * helper in its network namespace, as for lockchaos's own nodes), or none (a rented
 * service: the clients dial it, and nothing else reaches it).
 */
import { shellQuote } from '../backends/node-start.js';
import { ContainerNode, type NodeHandle, type NodeState, type PauseRecord } from '../cluster/cluster.js';
import type { ExecResult } from '../cluster/exec.js';
import { healLeft, hostScripts, processStates } from './commands.js';
import type { TargetNode } from './inventory.js';
import type { SshHost } from './ssh.js';
import { SshClockWarper } from './ssh-clock.js';

/** Readiness of the node's service, the backend's (its node spec's ready()). */
export type Ready = (node: NodeHandle, start?: { restart: boolean }) => Promise<void>;

abstract class TargetNodeBase {
  readonly role = 'node' as const;
  readonly containerId: string = '';
  /** Rules on a host the team runs touch only the service's traffic (loss drops by port). */
  readonly confined = true;
  constructor(
    readonly target: TargetNode,
    protected readonly ready: Ready,
  ) {}
  get name() {
    return this.target.name;
  }
  get ip() {
    return this.target.address;
  }
  get port() {
    return this.target.port;
  }
  get peerIp() {
    return this.target.peerAddress;
  }
}

/** What a command that had to work printed, as an Error naming the node and the verb. */
function must(node: string, verb: string, r: ExecResult): string {
  if (r.exitCode !== 0)
    throw new Error(`${node}: ${verb} failed (exit ${r.exitCode}): ${r.output.trim().split('\n')[0]}`);
  return r.output;
}

export class SshNode extends TargetNodeBase implements NodeHandle {
  /** The scripts every verb runs on the host (commands.ts), the run's id in them. */
  readonly scripts;
  /** node-clock's warps, by the helper on the host (ssh-clock.ts). */
  readonly clockWarp;
  constructor(
    target: TargetNode,
    ready: Ready,
    readonly host: SshHost,
    runId: string,
    /** A warp about to reach the host (true), or undone (false): for the run's ledger. */
    onWarp?: (pid: number, warped: boolean) => void,
  ) {
    super(target, ready);
    this.scripts = hostScripts(runId, target.commands);
    this.clockWarp = new SshClockWarper(host, this.scripts, onWarp);
  }
  private withPath(command: string[]): string {
    const line = command.map(shellQuote).join(' ');
    const path = this.target.commands.path;
    return path ? `PATH=${shellQuote(path)}:$PATH; export PATH; ${line}` : line;
  }
  exec(command: string[]) {
    return this.host.run(this.withPath(command));
  }
  netExec(command: string[]) {
    return this.host.run(this.withPath(command));
  }
  async pause(): Promise<PauseRecord> {
    return processStates(must(this.name, 'pause', await this.host.run(this.scripts.pause)));
  }
  async resume() {
    must(this.name, 'resume', await this.host.run(this.scripts.resume));
  }
  async signal(signal: string) {
    if (signal !== 'SIGKILL') throw new Error(`${this.name}: only SIGKILL is sent to a target's service`);
    must(this.name, 'kill', await this.host.run(this.scripts.kill));
  }
  async state(): Promise<NodeState> {
    const r = await this.host.run(this.scripts.probe);
    if (r.exitCode !== 0) return { running: false, startedAt: '', exitCode: r.exitCode };
    // The pids stand for when it started: a service started again has new ones.
    const pids = Object.keys(processStates(r.output)).sort();
    return { running: true, startedAt: pids.join(','), exitCode: 0 };
  }
  async restart() {
    must(this.name, 'start', await this.host.run(this.scripts.start));
    await this.ready(this, { restart: true });
  }
  async logs() {
    if (!this.scripts.logs) return '(no logs command in the inventory for this node)';
    return (await this.host.run(this.scripts.logs)).output;
  }
  /** The run's record on the host (its runner, its commands), before the run does anything there. */
  async record(owner: string): Promise<void> {
    must(this.name, 'record of the run', await this.host.run(this.scripts.record(owner)));
  }
  /** The record touched: the run still goes (a cleanup from another machine leaves it alone). */
  async heartbeat(): Promise<void> {
    await this.host.run(this.scripts.heartbeat);
  }
  /**
   * Undoes all the run did on the host (rules, stopped and killed processes) and checks it
   * took: what is left, in words (none: healed).
   */
  async heal(): Promise<string | undefined> {
    return healLeft(await this.host.run(this.scripts.heal));
  }
}

/**
 * An existing container (a Compose service): the engine's verbs on it, as on lockchaos's own
 * nodes, and its network faults from a helper in its namespace; its rules touch only the
 * service's traffic, and its peers are seen at the inventory's addresses.
 */
export class DockerTargetNode extends ContainerNode {
  readonly confined = true;
  readonly peerIp: string;
  constructor(target: TargetNode, ready: Ready, containerId: string, runId: string) {
    super({ name: target.name, role: 'node', port: target.port, ready }, containerId, target.address, undefined, runId);
    this.peerIp = target.peerAddress;
  }
}

/** A node with no control channel: dialed by the clients, never touched otherwise. */
export class UncontrolledNode extends TargetNodeBase implements NodeHandle {
  private refuse(verb: string): never {
    throw new Error(`${this.name} has no control channel: it cannot ${verb}`);
  }
  exec(): Promise<ExecResult> {
    this.refuse('run a command');
  }
  netExec(): Promise<ExecResult> {
    this.refuse('take network rules');
  }
  pause(): Promise<undefined> {
    this.refuse('be paused');
  }
  resume(): Promise<void> {
    this.refuse('be resumed');
  }
  signal(): Promise<void> {
    this.refuse('be signalled');
  }
  async state(): Promise<NodeState> {
    // Not observable; the clients see whether it answers.
    return { running: true, startedAt: '', exitCode: 0 };
  }
  async restart() {
    await this.ready(this, { restart: true });
  }
  async logs() {
    return '(no control channel: no log)';
  }
}
