/**
 * A target: a lock service that lockchaos does not start, described in an inventory file
 * (`--target FILE`, `target:` in a campaign). Each node is an address and a port the
 * clients dial, and an optional control channel through which node faults reach it:
 * `ssh` (a host, as Jepsen reaches its nodes), `docker` (a container that already runs:
 * a Compose stack), or none (a rented service: only the clients' side can be faulted).
 * Per node, the commands the faults need, with defaults by backend. Parsing is strict:
 * an unknown key or a wrong type is one UserError line with its path in the file.
 */
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { nearestOr } from '../util/did-you-mean.js';
import { errorMessage, UserError } from '../util/errors.js';
import { readRegularFile } from '../util/regular-file.js';
import { besideInventory, CONTAINER, HOST_OR_IP, SEARCH_PATH, type Shape, SSH_PATH, USER } from './value-shapes.js';

/**
 * What a fault needs of a lock node's control channel: stop or kill the service's process
 * ('process'), start it again ('restart'), add iptables rules on it ('network'), warp its
 * processes' clocks ('clock': the clock-warp helper, on the host or from this machine).
 */
export type NodeNeed = 'process' | 'restart' | 'network' | 'clock';

/** An SSH control channel: OpenSSH's client, with the host's key checked unless said. */
export interface SshChannel {
  kind: 'ssh';
  /** Where ssh connects (default: the node's address). */
  host: string;
  port: number;
  user: string;
  /** A private key file (absolute: a relative one is read beside the inventory); absent: the agent (SSH_AUTH_SOCK) or ssh's own defaults. */
  key?: string;
  /** A known_hosts file (absolute, as key); absent: ssh's own (~/.ssh/known_hosts). */
  knownHosts?: string;
  /** StrictHostKeyChecking=yes (the default); false: accept a new host's key (never a changed one). */
  hostKeyChecking: boolean;
  /** Run the commands under `sudo -n` (a user that is not root). */
  sudo: boolean;
}

/** An existing container, reached with `docker exec` on this engine. */
export interface DockerChannel {
  kind: 'docker';
  /** Its name or id. */
  container: string;
}

export type ControlChannel = SshChannel | DockerChannel | { kind: 'none' };

/** The shell commands node faults run on a host (ssh); a container's are the engine's verbs. */
export interface NodeCommands {
  /** Prints the pid(s) of the service's process(es), one per line ("pgrep -x etcd"). */
  process?: string;
  /** Starts the service again after a kill (kill-node); none: kill-node is refused. */
  start?: string;
  /**
   * Folders put before the host's PATH for every command (where iptables, iptables-save and
   * iptables-restore are, when not on the login PATH: "/usr/sbin:/sbin").
   */
  path?: string;
  /** Prints the service's recent log for nodes/<name>.log; none: no log is kept. */
  logs?: string;
}

export interface TargetNode {
  name: string;
  /** Where the clients dial it. */
  address: string;
  port: number;
  /** The address the other nodes reach it at, for partition rules (default: address). */
  peerAddress: string;
  /** Where its port was given, for messages: "nodes[1].port", "defaults.port", or the backend's. */
  portFrom?: string;
  control: ControlChannel;
  commands: NodeCommands;
}

export interface Inventory {
  /** The file, absolute, as test.json records it. */
  path: string;
  nodes: TargetNode[];
}

/** What a backend's service is called on a host, for the default `process` command. */
const SERVICE_PROCESS: Record<string, string> = {
  redis: 'pgrep -x redis-server',
  redlock: 'pgrep -x redis-server',
  'redis-sentinel': 'pgrep -x redis-server',
  etcd: 'pgrep -x etcd',
  zookeeper: 'pgrep -f org.apache.zookeeper.server',
  postgres: 'pgrep -o -x postgres',
};

/** The default `process` command for a backend's service; undefined when lockchaos cannot guess it. */
export const defaultProcessCommand = (backend: string): string | undefined => SERVICE_PROCESS[backend];

/** An inventory file is a few kB; anything past this is not one. */
const MAX_INVENTORY_BYTES = 1024 * 1024;

export const NODE_KEYS = ['name', 'address', 'port', 'peerAddress', 'ssh', 'docker', 'commands'] as const;
export const SSH_KEYS = ['host', 'port', 'user', 'key', 'knownHosts', 'hostKeyChecking', 'sudo'] as const;
export const COMMAND_KEYS = ['process', 'start', 'path', 'logs'] as const;
const TOP_KEYS = ['nodes', 'defaults'] as const;
const DEFAULT_KEYS = ['ssh', 'commands', 'port'] as const;

type Obj = Record<string, unknown>;

class Reader {
  constructor(private readonly file: string) {}
  fail(at: string, problem: string): never {
    throw new UserError(`--target ${this.file}: ${at} ${problem}`);
  }
  object(v: unknown, at: string, keys: readonly string[]): Obj {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) this.fail(at, 'must be a mapping of keys to values');
    for (const k of Object.keys(v)) {
      if (!keys.includes(k))
        this.fail(`${at}.${k}`, `is not a key here${nearestOr(k, keys, `use one of ${keys.join(', ')}`)}`);
    }
    return v as Obj;
  }
  string(v: unknown, at: string): string {
    if (typeof v !== 'string' || v.trim() === '') this.fail(at, 'must be a non-empty string');
    if (/[\0\n\r]/.test(v)) this.fail(at, 'must be one line');
    return v;
  }
  optionalString(v: unknown, at: string): string | undefined {
    return v === undefined ? undefined : this.string(v, at);
  }
  /** A value that reaches a host's command line or ssh's argv, held to `shape`: what it must be. */
  shaped(v: unknown, at: string, shape: Shape): string {
    const s = this.string(v, at);
    if (!shape.test(s)) this.fail(at, `must be ${shape.what} (got ${shown(s)})`);
    return s;
  }
  optionalShaped(v: unknown, at: string, shape: Shape): string | undefined {
    return v === undefined ? undefined : this.shaped(v, at, shape);
  }
  port(v: unknown, at: string): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 65535)
      this.fail(at, 'must be a port from 1 to 65535');
    return v;
  }
  boolean(v: unknown, at: string, dflt: boolean): boolean {
    if (v === undefined) return dflt;
    if (typeof v !== 'boolean') this.fail(at, 'must be true or false');
    return v;
  }
}

/** A node's name: what its log file and its records are called. */
const NAME = /^[a-z0-9][a-z0-9_.-]{0,62}$/i;

/** A hostile value, shown in a refusal on one line and not too long. */
const shown = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}...` : s);

/**
 * The inventory an object describes (a parsed file's contents), for a backend: defaults of
 * its service (process command, client port). `file` names it in messages.
 */
export function parseInventory(data: unknown, file: string, defaults: { backend: string; port: number }): Inventory {
  const r = new Reader(file);
  const top = r.object(data, 'the file', TOP_KEYS);
  const shared = top.defaults === undefined ? {} : r.object(top.defaults, 'defaults', DEFAULT_KEYS);
  const list = top.nodes;
  if (!Array.isArray(list) || list.length === 0) r.fail('nodes', 'must be a list of one node or more');
  const seen = new Set<string>();
  const nodes = (list as unknown[]).map((raw, i): TargetNode => {
    const at = `nodes[${i}]`;
    const n = r.object(raw, at, NODE_KEYS);
    const name = r.string(n.name, `${at}.name`);
    if (!NAME.test(name)) r.fail(`${at}.name`, `must be letters, digits, . _ - (got '${name}')`);
    if (name === 'store') r.fail(`${at}.name`, "must not be 'store' (the run's data store is called so)");
    if (seen.has(name)) r.fail(`${at}.name`, `names '${name}' a second time: give each node its own name`);
    seen.add(name);
    const address = r.shaped(n.address, `${at}.address`, HOST_OR_IP);
    const portFrom =
      n.port !== undefined
        ? `${at}.port`
        : shared.port !== undefined
          ? 'defaults.port'
          : `${at}.port (not set: ${defaults.backend || 'the backend'}'s ${defaults.port})`;
    const port =
      n.port !== undefined
        ? r.port(n.port, `${at}.port`)
        : shared.port !== undefined
          ? r.port(shared.port, 'defaults.port')
          : defaults.port;
    const peerAddress = r.optionalShaped(n.peerAddress, `${at}.peerAddress`, HOST_OR_IP) ?? address;
    if (n.ssh !== undefined && n.docker !== undefined) r.fail(at, 'has both ssh and docker: give one control channel');
    const control = channelOf(r, n, shared, at, address, dirname(file));
    const commands = commandsOf(r, n.commands, shared.commands, at, defaults.backend);
    return { name, address, port, peerAddress, portFrom, control, commands };
  });
  return { path: file, nodes };
}

function channelOf(r: Reader, n: Obj, shared: Obj, at: string, address: string, folder: string): ControlChannel {
  if (n.docker !== undefined) {
    const d = r.object(n.docker, `${at}.docker`, ['container']);
    return { kind: 'docker', container: r.shaped(d.container, `${at}.docker.container`, CONTAINER) };
  }
  // A node with no ssh of its own takes the defaults' only when it says `ssh: {}` or the
  // defaults have one: a list of rented nodes needs no ssh at all.
  if (n.ssh === undefined && shared.ssh === undefined) return { kind: 'none' };
  if (n.ssh === null || n.ssh === false) return { kind: 'none' };
  const own = n.ssh === undefined ? {} : r.object(n.ssh, `${at}.ssh`, SSH_KEYS);
  const base = shared.ssh === undefined ? {} : r.object(shared.ssh, 'defaults.ssh', SSH_KEYS);
  const s = { ...base, ...own };
  const where = (k: string) => (k in own ? `${at}.ssh.${k}` : `defaults.ssh.${k}`);
  if (s.user === undefined) r.fail(`${at}.ssh.user`, 'is missing: name the user ssh logs in as');
  const file = (k: 'key' | 'knownHosts') => {
    const given = r.optionalShaped(s[k], where(k), SSH_PATH);
    return given === undefined ? undefined : besideInventory(given, folder);
  };
  return {
    kind: 'ssh',
    host: r.optionalShaped(s.host, where('host'), HOST_OR_IP) ?? address,
    port: s.port === undefined ? 22 : r.port(s.port, where('port')),
    user: r.shaped(s.user, where('user'), USER),
    key: file('key'),
    knownHosts: file('knownHosts'),
    hostKeyChecking: r.boolean(s.hostKeyChecking, where('hostKeyChecking'), true),
    sudo: r.boolean(s.sudo, where('sudo'), false),
  };
}

function commandsOf(r: Reader, own: unknown, shared: unknown, at: string, backend: string): NodeCommands {
  const o = own === undefined ? {} : r.object(own, `${at}.commands`, COMMAND_KEYS);
  const s = shared === undefined ? {} : r.object(shared, 'defaults.commands', COMMAND_KEYS);
  const c = { ...s, ...o };
  const where = (k: string) => (k in o ? `${at}.commands.${k}` : `defaults.commands.${k}`);
  return {
    process: r.optionalString(c.process, where('process')) ?? defaultProcessCommand(backend),
    start: r.optionalString(c.start, where('start')),
    path: r.optionalShaped(c.path, where('path'), SEARCH_PATH),
    logs: r.optionalString(c.logs, where('logs')),
  };
}

/** Reads and parses an inventory file; every problem is one UserError line naming the file. */
export function readInventory(path: string, defaults: { backend: string; port: number }): Inventory {
  const text = readRegularFile(path, 'target inventory', {
    maxBytes: MAX_INVENTORY_BYTES,
    fix: 'an inventory is a YAML list of nodes: give that file',
  }).toString('utf8');
  let data: unknown;
  try {
    data = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    const first = (err as Error).message.split('\n')[0];
    throw new UserError(`--target ${path}: not YAML (${first}): fix the file`);
  }
  return parseInventory(data, path, defaults);
}

/**
 * Checks that the files the ssh channels name (key, knownHosts) are there, as `--dry-run`
 * and a run's start do before any host is reached: ssh would otherwise say only that it
 * could not log in, or that the host is unknown.
 */
export function checkChannelFiles(inventory: Inventory): void {
  for (const n of inventory.nodes) {
    const c = n.control;
    if (c.kind !== 'ssh') continue;
    for (const [k, path] of [
      ['key', c.key],
      ['knownHosts', c.knownHosts],
    ] as const) {
      if (path === undefined) continue;
      let why: string | undefined;
      try {
        if (!statSync(path).isFile()) why = 'is not a file';
      } catch (err) {
        why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : errorMessage(err);
      }
      if (why)
        throw new UserError(
          `--target ${inventory.path}: node ${n.name}: ssh.${k} ${path} ${why}: give the file's path (a relative one is read beside the inventory, ~/ in the home folder)`,
        );
    }
  }
}

/** Which nodes take node faults, and how each is reached, without anything secret: for test.json and the report. */
export function describeNode(n: TargetNode): string {
  const via =
    n.control.kind === 'ssh'
      ? `ssh ${n.control.user}@${n.control.host}:${n.control.port}`
      : n.control.kind === 'docker'
        ? `docker container ${n.control.container}`
        : 'no control channel';
  return `${n.name} ${n.address}:${n.port} (${via})`;
}
