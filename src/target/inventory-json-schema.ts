/**
 * The inventory file's JSON Schema, for editors (a YAML language server completes and checks
 * a file whose first line is `# yaml-language-server: $schema=.../target.schema.json`). Its
 * keys are the parser's own lists (inventory.ts), so the two cannot drift; a test compares
 * it with the file shipped in examples/.
 */
import { COMMAND_KEYS, NODE_KEYS, SSH_KEYS } from './inventory.js';
import { CONTAINER, HOST_OR_IP, SEARCH_PATH, type Shape, SSH_PATH, USER } from './value-shapes.js';

type Json = Record<string, unknown>;

const text = (description: string): Json => ({ type: 'string', minLength: 1, description });
/** A value held to a shape (value-shapes.ts): its pattern, for an editor to check as it is typed. */
const shaped = (shape: Shape, description: string): Json => ({ ...text(description), pattern: shape.pattern });
const port = (description: string): Json => ({ type: 'integer', minimum: 1, maximum: 65535, description });

const DESCRIBE: Record<string, Json> = {
  host: shaped(HOST_OR_IP, "where ssh connects, a host name or an IP address (default: the node's address)"),
  port: port('the SSH port (default 22)'),
  user: shaped(USER, 'the user ssh logs in as'),
  key: shaped(
    SSH_PATH,
    'a private key file, read beside the inventory when relative (default: the agent, or ssh defaults)',
  ),
  knownHosts: shaped(SSH_PATH, "a known_hosts file, read beside the inventory when relative (default: ssh's own)"),
  hostKeyChecking: {
    type: 'boolean',
    description: "check the host's key (default true); false: accept a new host's key, into a copy private to the run",
  },
  sudo: { type: 'boolean', description: 'run the commands under sudo -n (default false)' },
};

const COMMANDS: Record<string, Json> = {
  process: text("prints the service's pids, one per line (default by backend: pgrep -x etcd ...)"),
  start: text('starts the service again after kill-node; must return once it is started'),
  path: shaped(SEARCH_PATH, 'folders put before PATH for every command (where iptables is: /usr/sbin:/sbin)'),
  logs: text("prints the service's recent log, kept as nodes/<name>.log"),
};

const object = (keys: readonly string[], properties: Record<string, Json>, required: string[] = []): Json => ({
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(keys.map((k) => [k, properties[k] ?? {}])),
  ...(required.length > 0 ? { required } : {}),
});

export function inventoryJsonSchema(): Json {
  const ssh = object(SSH_KEYS, DESCRIBE);
  const commands = object(COMMAND_KEYS, COMMANDS);
  const node = object(
    NODE_KEYS,
    {
      name: {
        type: 'string',
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$',
        description: "the node's name in records and logs",
      },
      address: shaped(HOST_OR_IP, 'where the clients dial it: a host name or an IP address'),
      port: port("the service's client port (default: the backend's)"),
      peerAddress: shaped(
        HOST_OR_IP,
        'where the other nodes reach it, for partition rules: a host name or an IP address (default: address)',
      ),
      ssh: { ...ssh, description: 'reach the host over SSH' },
      docker: object(['container'], { container: shaped(CONTAINER, 'an existing container, by name or id') }, [
        'container',
      ]),
      commands,
    },
    ['name', 'address'],
  );
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'lockchaos target inventory',
    description: 'A lock service lockchaos does not start: its nodes and how faults reach them (docs/targets.md)',
    type: 'object',
    additionalProperties: false,
    required: ['nodes'],
    properties: {
      defaults: object(['ssh', 'commands', 'port'], { ssh, commands, port: port("every node's port") }),
      nodes: { type: 'array', minItems: 1, items: node },
    },
  };
}
