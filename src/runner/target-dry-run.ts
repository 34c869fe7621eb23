/**
 * `run --target FILE --dry-run`: host by host, every command the run would execute on the
 * target's nodes, built by the same functions the run uses (so what is shown is what runs),
 * with the run's id as <run>. Nothing is imported, connected or started: a module backend is
 * not loaded (its defaults are unknown then, and said so), and no host is reached.
 */

import { statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { isModulePath, knownBackend } from '../backends/index.js';
import { clockWarpHelper } from '../cluster/clock-warp.js';
import type { NodeHandle } from '../cluster/cluster.js';
import { removeRulesCommand } from '../nemesis/iptables.js';
import { lossRule } from '../nemesis/kinds/loss.js';
import { partitionRule } from '../nemesis/kinds/partition.js';
import { parseFaults } from '../nemesis/spec.js';
import type { TestConfig } from '../run-data/parameters.js';
import { backendOptionsOf, resolveRun } from '../run-data/resolve.js';
import { targetNotes } from '../run-data/target.js';
import { SHOWN } from '../target/clock-scripts.js';
import { HEARTBEAT_S, hostScripts } from '../target/commands.js';
import {
  checkChannelFiles,
  describeNode,
  type Inventory,
  type NodeNeed,
  readInventory,
  type TargetNode,
} from '../target/inventory.js';

const RUN = '<run>';

/** The argv a node fault runs through a channel, as the line a reader checks. */
const shown = (argv: string[]) => (argv[0] === 'bash' && argv[1] === '-c' ? (argv[2] as string) : argv.join(' '));

/** A script's lines, indented under its verb. */
const block = (verb: string, script: string) =>
  [`  ${verb}:`, ...script.split('\n').map((line) => `      ${line}`)].join('\n');

function sshLines(node: TargetNode, inventory: Inventory, needs: ReadonlySet<NodeNeed>, kinds: ReadonlySet<string>) {
  const all = hostScripts(RUN, node.commands);
  // Each script after its shared beginning, shown once (the functions and the run's names).
  const body = (script: string) => (script.startsWith(all.shared) ? script.slice(all.shared.length) : script);
  const s = { ...all, probe: body(all.probe), pause: body(all.pause), resume: body(all.resume) };
  const more = {
    kill: body(all.kill),
    start: body(all.start),
    heal: body(all.heal),
    record: body(all.record('<runner>')),
  };
  const c = node.control;
  const lines = [`${describeNode(node)}${c.kind === 'ssh' && c.sudo ? ', under sudo -n' : ''}`];
  lines.push(block('connect (at the start)', 'true'));
  lines.push(block('every script below but iptables and logs begins with', all.shared.trimEnd()));
  if (needs.has('process')) lines.push(block('find the service (at the start, and to watch it)', s.probe));
  if (needs.has('network')) lines.push(block('check iptables (at the start)', s.canIptables));
  lines.push(block(`record the run (at the start; touched every ${HEARTBEAT_S} s while it goes)`, more.record));
  if (kinds.has('pause-node')) lines.push(block('pause-node', s.pause), block('pause-node heal', s.resume));
  if (kinds.has('kill-node')) lines.push(block('kill-node', more.kill), block('kill-node heal', more.start));
  const handle = { confined: true, port: node.port } as Pick<NodeHandle, 'confined' | 'port'>;
  if (kinds.has('partition-nodes')) {
    const peers = inventory.nodes.filter((n) => n !== node).map((n) => partitionRule(n.peerAddress, RUN));
    lines.push(block('partition (a rule per peer cut off)', peers.join('\n')));
  }
  if (kinds.has('loss')) lines.push(block('loss', shown(lossRule(handle, RUN))));
  if (needs.has('network')) lines.push(block('partition and loss heal', shown(removeRulesCommand(RUN))));
  if (needs.has('clock')) lines.push(...clockLines(all, body));
  if (s.logs) lines.push(block('logs (at the end)', s.logs));
  lines.push(block('heal (at the end, on Ctrl-C, and at the next start or cleanup after a crash)', more.heal));
  return lines;
}

/** node-clock's scripts on a host: its check and the helper's copy at the start, each verb of a fault. */
function clockLines(all: ReturnType<typeof hostScripts>, body: (script: string) => string): string[] {
  const c = all.clock;
  const helper = clockWarpHelper();
  const bytes = helper === undefined ? 0 : statSync(helper).size;
  return [
    block('node-clock: check the host (at the start)', body(c.check)),
    block(
      "node-clock: copy this machine's clock-warp helper, its bytes on stdin (at the start)",
      body(c.install(bytes)),
    ),
    block("node-clock: try the helper on the service's first process (at the start)", body(c.probe)),
    block("node-clock (for each of the service's pids)", body(c.warp(SHOWN.pid, SHOWN.change))),
    block('node-clock strobe (each flip)', body(c.set(SHOWN.pid, SHOWN.change))),
    block('node-clock read (the warp in place)', body(c.read(SHOWN.pid))),
    block('node-clock heal (for each pid it warped)', body(c.restore(SHOWN.pid))),
    block('node-clock heal (processes born of a warped one, to read and restore)', body(c.born([SHOWN.pid]))),
  ];
}

function dockerLines(node: TargetNode, inventory: Inventory, kinds: ReadonlySet<string>) {
  const c = node.control as { container: string };
  const lines = [describeNode(node), `  connect (at the start): docker inspect ${c.container}`];
  if (kinds.has('pause-node'))
    lines.push(`  pause-node: docker pause ${c.container}; heal: docker unpause ${c.container}`);
  if (kinds.has('kill-node'))
    lines.push(`  kill-node: docker kill --signal SIGKILL ${c.container}; heal: docker start ${c.container}`);
  const inNetns = `in a helper container of the run in ${c.container}'s network namespace`;
  if (kinds.has('partition-nodes')) {
    const peers = inventory.nodes.filter((n) => n !== node).map((n) => partitionRule(n.peerAddress, RUN));
    lines.push(block(`partition, ${inNetns}`, peers.join('\n')));
  }
  if (kinds.has('loss'))
    lines.push(block(`loss, ${inNetns}`, shown(lossRule({ confined: true, port: node.port }, RUN))));
  if (kinds.has('loss') || kinds.has('partition-nodes'))
    lines.push(block(`heal, ${inNetns}`, shown(removeRulesCommand(RUN))));
  if (kinds.has('node-clock'))
    lines.push(
      `  node-clock: this machine's clock-warp helper (${clockWarpHelper() ?? 'not built'}) on the host pids of ${c.container}'s processes (attach, set, read, restore <pid>), as on lockchaos's own nodes`,
    );
  lines.push(`  logs (at the end): docker logs --since <run start> ${c.container}`);
  return lines;
}

/**
 * The listing for a configuration with --target; a UserError for a bad inventory. A
 * built-in backend's run is checked whole first, as the run would (a fault a node cannot
 * take is refused); a module backend is code, and a dry run runs none.
 */
export function targetDryRun(given: TestConfig): string {
  const config = { ...given, target: resolvePath(given.target as string) };
  if (!isModulePath(config.backend)) resolveRun(config);
  const file = config.target;
  const backend = isModulePath(config.backend) ? undefined : knownBackend(config);
  const port = backend?.nodeSpecs(backendOptionsOf({ ...config, nodes: undefined }, backend))[0]?.port ?? 0;
  const inventory = readInventory(file, { backend: backend?.name ?? '', port });
  // A module backend's run is not resolved above: its files are checked here all the same.
  checkChannelFiles(inventory);
  const faults = parseFaults(config.nemesis);
  const needs = new Set<NodeNeed>(faults.flatMap(({ spec, module }) => module.nodeNeeds?.(spec) ?? []));
  const kinds = new Set<string>(
    faults.map(({ spec, module }) =>
      spec.kind === 'partition' && (module.nodeNeeds?.(spec) ?? []).length > 0 ? 'partition-nodes' : spec.kind,
    ),
  );
  const out = [
    `lockchaos run --dry-run: the commands a run of --nemesis ${config.nemesis} on ${file} executes, host by host`,
    `(<run> stands for the run's id; nothing was connected or started${backend ? '' : '; the module backend was not loaded, so its defaults are not shown'})`,
    ...targetNotes(backend?.name ?? '', inventory),
    '',
  ];
  for (const node of inventory.nodes) {
    const lines =
      node.control.kind === 'ssh'
        ? sshLines(node, inventory, needs, kinds)
        : node.control.kind === 'docker'
          ? dockerLines(node, inventory, kinds)
          : [describeNode(node), '  no commands: only its clients reach it (client-side faults)'];
    out.push(...lines, '');
  }
  out.push(
    'on this machine: a data store container, the client workers, and their proxies (latency, partition:clients, wire)',
  );
  return out.join('\n');
}
