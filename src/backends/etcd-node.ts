/**
 * etcd servers in node containers: a 3-member cluster bootstrapped statically (every
 * member is told the others' peer URLs by DNS name), and what the runner asks of a member
 * over its HTTP gateway: is it ready, and does it believe it leads.
 */
import type { NodeHandle, NodeSpec, PeerNames } from '../cluster/cluster.js';
import { DATA_DIR, startWithData, waitAtMost, waitUntilReady } from './node-start.js';

export const ETCD_CLIENT_PORT = 2379;
export const ETCD_PEER_PORT = 2380;
export const ETCD_NODES = 3;

export const etcdNodeName = (i: number) => `etcd-${i}`;

export function etcdNodeSpecs(count = ETCD_NODES): NodeSpec[] {
  const names = Array.from({ length: count }, (_, i) => etcdNodeName(i + 1));
  return names.map((name) => ({
    name,
    role: 'node',
    port: ETCD_CLIENT_PORT,
    command: (peers) =>
      startWithData(etcdServer(name, names, peers), [
        ...replaceMemberIfWiped(name, names, peers),
        ...afterPreviousMember(name, names, peers),
      ]),
    ready: (node) => waitForEtcd(node.ip, undefined, node.port),
  }));
}

function etcdServer(name: string, names: string[], peers: PeerNames): string[] {
  return [
    'etcd',
    '--name',
    name,
    '--data-dir',
    `${DATA_DIR}/etcd`,
    '--listen-client-urls',
    `http://0.0.0.0:${ETCD_CLIENT_PORT}`,
    '--advertise-client-urls',
    `http://${peers.host(name)}:${ETCD_CLIENT_PORT}`,
    '--listen-peer-urls',
    `http://0.0.0.0:${ETCD_PEER_PORT}`,
    '--initial-advertise-peer-urls',
    `http://${peers.host(name)}:${ETCD_PEER_PORT}`,
    '--initial-cluster',
    names.map((n) => `${n}=http://${peers.host(n)}:${ETCD_PEER_PORT}`).join(','),
    // The run's network name is unique, so it keeps two runs' members apart.
    '--initial-cluster-token',
    peers.host('etcd'),
    // etcd's defaults (100 ms heartbeat, 1 s election timeout) make its shortest lease
    // 2 s (1.5 election timeouts, rounded up). Halving both allows 1 s leases, the
    // default TTL of a run, and still leaves room for a loaded 2-core machine.
    '--heartbeat-interval',
    '50',
    '--election-timeout',
    '500',
    '--logger',
    'zap',
    '--log-outputs',
    'stderr',
  ];
}

/**
 * A member that lost its data cannot come back as itself (etcd refuses a bootstrapped
 * member with an empty log). Do what an operator does: through the other members, remove
 * the old member and add a fresh one with the same name and peer URL, then join the
 * existing cluster empty. This needs a quorum of the others; without one the node never
 * becomes ready, as a real one would not. The initial cluster state goes through the
 * environment (a flag could not depend on the wipe); etcd ignores it when it has data.
 */
function replaceMemberIfWiped(name: string, names: string[], peers: PeerNames): string[] {
  const peerUrl = `http://${peers.host(name)}:${ETCD_PEER_PORT}`;
  const others = names
    .filter((n) => n !== name)
    .map((n) => `http://${peers.host(n)}:${ETCD_CLIENT_PORT}`)
    .join(',');
  const ctl = `etcdctl --endpoints=${others} --command-timeout=2s`;
  return [
    'export ETCD_INITIAL_CLUSTER_STATE=new',
    'if [ "$DATA_WIPED" = 1 ]; then',
    '  replaced=no',
    '  for try in $(seq 1 120); do',
    `    old=$(${ctl} member list | awk -F', ' '$4 == "${peerUrl}" { print $1 }')`,
    `    { [ -z "$old" ] || ${ctl} member remove "$old"; } && ${ctl} member add ${name} --peer-urls=${peerUrl} && replaced=yes && break`,
    '    sleep 0.5',
    '  done',
    `  [ $replaced = yes ] && echo "lockchaos: ${name} lost its data: replaced it with a new member" || echo "lockchaos: ${name} lost its data and could not be replaced (no quorum)"`,
    '  export ETCD_INITIAL_CLUSTER_STATE=existing',
    'fi',
  ];
}

/**
 * At the cluster's first start, a member waits (3 s at most) until the member before it
 * answers on its peer port. etcd 3.4 bootstraps a new member by asking every other member's
 * /members with a 1 s timeout, and a member that already listens but is in that same check
 * does not answer until the timeout: started all at once, the members held each other up
 * 1-2 s (bench:startup). One after another, each finds every other member serving, or not
 * listening yet (refused at once). Not after a start with data, or a wiped member's
 * replacement: neither bootstraps.
 */
function afterPreviousMember(name: string, names: string[], peers: PeerNames): string[] {
  const previous = names.indexOf(name) - 1;
  if (previous < 0) return [];
  const host = peers.host(names[previous]);
  const answers = `(exec 3<>/dev/tcp/${host}/${ETCD_PEER_PORT} && printf 'GET /members HTTP/1.0\\r\\n\\r\\n' >&3 && read -r -t 0.2 line <&3) 2>/dev/null`;
  return [
    `if [ ! -d ${DATA_DIR}/etcd ] && [ "$ETCD_INITIAL_CLUSTER_STATE" = new ]; then`,
    `  ${waitAtMost(answers)}`,
    'fi',
  ];
}

async function gatewayPost<T>(ip: string, path: string, timeoutMs: number, port = ETCD_CLIENT_PORT): Promise<T> {
  const res = await fetch(`http://${ip}:${port}${path}`, {
    method: 'POST',
    body: '{}',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return (await res.json()) as T;
}

/**
 * Ready when the member answers /health as healthy, which needs a leader, so a quorum of
 * the members: startCluster starts them in parallel, so each waits for the others here.
 */
export function waitForEtcd(ip: string, deadlineMs = 60_000, port = ETCD_CLIENT_PORT): Promise<void> {
  return waitUntilReady(`etcd at ${ip}:${port}`, deadlineMs, 50, async () => {
    const res = await fetch(`http://${ip}:${port}/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await res.json()) as { health?: string };
    return (res.ok && body.health === 'true') || `health: ${JSON.stringify(body)}`;
  });
}

interface EtcdStatus {
  header: { member_id: string; raft_term: string };
  leader: string;
}

/**
 * The node whose member reports itself the leader (its member id equals the leader id it
 * reports). Nodes that do not answer within timeoutMs (paused, cut off) are skipped; if two
 * claim to lead (an old leader cut off from the rest), the higher raft term wins.
 */
export async function etcdLeader(nodes: NodeHandle[], timeoutMs = 1000): Promise<string | undefined> {
  const claims = await Promise.all(
    nodes
      .filter((n) => n.role === 'node')
      .map(async (n) => {
        try {
          const s = await gatewayPost<EtcdStatus>(n.ip, '/v3/maintenance/status', timeoutMs, n.port);
          return s.leader && s.leader === s.header.member_id
            ? { name: n.name, term: BigInt(s.header.raft_term) }
            : null;
        } catch {
          return null;
        }
      }),
  );
  let best: { name: string; term: bigint } | undefined;
  for (const c of claims) if (c && (!best || c.term > best.term)) best = c;
  return best?.name;
}
