/**
 * ZooKeeper servers in node containers: a 3-server ensemble from a static zoo.cfg (every
 * server listed by DNS name), Debian's ZooKeeper jar run by java as PID 1, and the
 * four-letter words the runner asks of a server (`srvr`: is it serving, and as what).
 */
import { createConnection } from 'node:net';
import type { NodeHandle, NodeSpec } from '../cluster/cluster.js';
import { DATA_DIR, startWithData, waitUntilReady } from './node-start.js';

export const ZK_CLIENT_PORT = 2181;
export const ZK_NODES = 3;

export const zkNodeName = (i: number) => `zk-${i}`;

/**
 * A short tick, so that sessions as short as a run's TTL (1 s by default) are allowed and
 * expire on time: the server checks expiry once a tick, and by default refuses a session
 * timeout under 2 ticks. Quorum limits are in ticks too: 10 s to join, 2 s to stay in sync.
 */
export const ZK_TICK_MS = 100;

function zooCfg(myId: number, servers: string[]): string {
  return [
    `tickTime=${ZK_TICK_MS}`,
    'initLimit=100',
    'syncLimit=20',
    `minSessionTimeout=${2 * ZK_TICK_MS}`,
    'maxSessionTimeout=60000',
    `dataDir=${DATA_DIR}/zookeeper`,
    `clientPort=${ZK_CLIENT_PORT}`,
    // srvr, ruok, mntr ... for readiness and leader(); no admin HTTP server.
    '4lw.commands.whitelist=*',
    'admin.enableServer=false',
    // Bind quorum and election ports on every address, not only the one our name resolves to.
    'quorumListenOnAllIPs=true',
    ...servers.map((host, i) => `server.${i + 1}=${host}:2888:3888`),
    `# this is server.${myId}`,
  ].join('\n');
}

const JAVA = [
  'java',
  '-Xms64m',
  '-Xmx256m',
  '-XX:+UseSerialGC',
  '-Djava.net.preferIPv4Stack=true',
  '-Dorg.slf4j.simpleLogger.showDateTime=true',
  "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSSX",
  '-cp',
  // slf4j-simple logs to stderr, so the server's log is the container's output (nodes/*.log);
  // without a binding slf4j logs nothing at all.
  '/etc/zookeeper/conf:/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar',
  'org.apache.zookeeper.server.quorum.QuorumPeerMain',
  '/etc/lockchaos-zoo.cfg',
];

export function zkNodeSpecs(count = ZK_NODES): NodeSpec[] {
  const names = Array.from({ length: count }, (_, i) => zkNodeName(i + 1));
  return names.map((name, i) => ({
    name,
    role: 'node',
    port: ZK_CLIENT_PORT,
    // Config and myid are written at every start (a wiped /data loses myid); then java is
    // exec'd, so the JVM is PID 1 and a signal to the container reaches the server.
    command: (peers) =>
      startWithData(JAVA, [
        `cat > /etc/lockchaos-zoo.cfg <<'EOF'\n${zooCfg(i + 1, names.map(peers.host))}\nEOF`,
        `mkdir -p ${DATA_DIR}/zookeeper && echo ${i + 1} > ${DATA_DIR}/zookeeper/myid`,
      ]),
    // A target's node may listen elsewhere than the default port (its inventory's `port`).
    ready: (node) => waitForZooKeeper(node.ip, undefined, node.port),
  }));
}

/** Sends a four-letter word to a server and returns its whole answer. */
export function fourLetterWord(ip: string, word: string, timeoutMs = 1000, port = ZK_CLIENT_PORT): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: ip, port });
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`${word}: no answer from ${ip} in ${timeoutMs} ms`)));
    socket.on('connect', () => socket.end(word));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** The server's mode from `srvr` ("leader", "follower", "standalone"), or undefined if not serving. */
export async function zkMode(ip: string, timeoutMs = 1000, port = ZK_CLIENT_PORT): Promise<string | undefined> {
  const answer = await fourLetterWord(ip, 'srvr', timeoutMs, port);
  return /^Mode: (\w+)/m.exec(answer)?.[1];
}

/**
 * Ready when `srvr` reports a mode: the server has joined a quorum (until then it answers
 * "This ZooKeeper instance is not currently serving requests"). The servers start in
 * parallel, so each waits here for the others.
 */
export function waitForZooKeeper(ip: string, deadlineMs = 60_000, port = ZK_CLIENT_PORT): Promise<void> {
  return waitUntilReady(`zookeeper at ${ip}:${port}`, deadlineMs, 50, async () =>
    (await zkMode(ip, 1000, port)) ? true : 'not serving yet',
  );
}

/** The node whose server says "Mode: leader"; servers that do not answer are skipped. */
export async function zkLeader(nodes: NodeHandle[], timeoutMs = 1000): Promise<string | undefined> {
  const modes = await Promise.all(
    nodes
      .filter((n) => n.role === 'node')
      .map(async (n) => ({
        name: n.name,
        mode: await zkMode(n.ip, timeoutMs, n.port).catch(() => undefined),
      })),
  );
  return modes.find((m) => m.mode === 'leader')?.name;
}
