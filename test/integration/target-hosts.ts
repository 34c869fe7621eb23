/**
 * Hosts the way a team has them, made outside lockchaos (plain `docker run`, no lockchaos
 * label): containers of the node image that run sshd and a lock service started by a
 * script, as a VM with systemd would, on a network of their own. Each host's key is read
 * into a known_hosts file, so host-key checking stays on; the client key is made here.
 * `removeHosts` takes them all away (the test's own cleanup, not lockchaos's).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_IMAGE } from '../../src/cluster/docker-engine.js';

export interface TestHost {
  name: string;
  container: string;
  ip: string;
}

export interface TestHosts {
  id: string;
  network: string;
  dir: string;
  key: string;
  knownHosts: string;
  hosts: TestHost[];
}

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8' }).trim();

/** The script every host runs as its main process: sshd, then the service, then wait. */
const ENTRY = [
  'set -e',
  'mkdir -p /run/sshd /root/.ssh /data',
  'ssh-keygen -A >/dev/null',
  'printf "%s\\n" "$AUTHORIZED_KEY" > /root/.ssh/authorized_keys',
  'chmod 700 /root/.ssh; chmod 600 /root/.ssh/authorized_keys',
  // The service's command, as a unit file would hold it; start-service starts it detached.
  'printf "%s\\n" "$SERVICE_CMD" > /etc/service-cmd',
  'printf "#!/bin/sh\\nsetsid sh -c \\"exec \\$(cat /etc/service-cmd)\\" >>/var/log/service.log 2>&1 </dev/null &\\n" > /usr/local/bin/start-service',
  'chmod +x /usr/local/bin/start-service',
  '/usr/sbin/sshd',
  '/usr/local/bin/start-service',
  'exec sleep infinity',
].join('\n');

/**
 * Starts one host per service command, named `<prefix>-<name>`, on a fresh network. A host
 * with `init: false` has no init that reaps (its PID 1 is `sleep infinity`): a killed
 * service stays there as a zombie, as on a container started without --init.
 */
export function startHosts(
  services: { name: string; command: (hostOf: (name: string) => string) => string; init?: boolean }[],
): TestHosts {
  const id = Math.random().toString(16).slice(2, 8);
  const network = `lcxtest-${id}`;
  const dir = mkdtempSync(join(tmpdir(), 'lcxtest-'));
  const key = join(dir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const publicKey = readFileSync(`${key}.pub`, 'utf8').trim();
  docker('network', 'create', network);
  const hostOf = (name: string) => `${network}-${name}`;
  const hosts: TestHost[] = services.map(({ name, command, init = true }) => {
    const container = hostOf(name);
    docker(
      'run',
      '-d',
      ...(init ? ['--init'] : []),
      '--name',
      container,
      '--hostname',
      container,
      '--network',
      network,
      '--cap-add',
      'NET_ADMIN',
      '-e',
      `AUTHORIZED_KEY=${publicKey}`,
      '-e',
      `SERVICE_CMD=${command(hostOf)}`,
      NODE_IMAGE,
      'bash',
      '-c',
      ENTRY,
    );
    const ip = docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`, container);
    return { name, container, ip };
  });
  // Each host's own key, read from the host: the first connection is checked, not trusted.
  const lines = hosts.map((h) => {
    for (let i = 0; ; i++) {
      try {
        return `${h.ip} ${docker('exec', h.container, 'cat', '/etc/ssh/ssh_host_ed25519_key.pub').split(' ').slice(0, 2).join(' ')}`;
      } catch (err) {
        if (i > 50) throw err;
        execFileSync('sleep', ['0.1']);
      }
    }
  });
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `${lines.join('\n')}\n`);
  return { id, network, dir, key, knownHosts, hosts };
}

export function removeHosts(h: TestHosts | undefined) {
  if (!h) return;
  for (const host of h.hosts) {
    try {
      docker('rm', '-f', host.container);
    } catch {
      // already gone
    }
  }
  try {
    docker('network', 'rm', h.network);
  } catch {
    // already gone
  }
}

/** A command run on the host (as its operator would look): its output. */
export const onHost = (h: TestHost, script: string) => docker('exec', h.container, 'sh', '-c', script);

/** A command run on the host as another of its users (not root): its output. */
export const asUser = (h: TestHost, user: string, script: string) =>
  docker('exec', '-u', user, h.container, 'sh', '-c', script);

/** The etcd member command of host `name` among `names`, peers by their host names. */
export const etcdCommand = (name: string, names: string[]) => (hostOf: (n: string) => string) =>
  [
    'etcd',
    `--name ${name}`,
    '--data-dir /data/etcd',
    '--listen-client-urls http://0.0.0.0:2379',
    `--advertise-client-urls http://${hostOf(name)}:2379`,
    '--listen-peer-urls http://0.0.0.0:2380',
    `--initial-advertise-peer-urls http://${hostOf(name)}:2380`,
    `--initial-cluster ${names.map((n) => `${n}=http://${hostOf(n)}:2380`).join(',')}`,
    '--initial-cluster-state new',
    '--initial-cluster-token lcxtest',
    // As the built-in backend runs it: with etcd's defaults the shortest lease is 2 s, longer
    // than gc-pause's 1 s TTL, and the pauses would not outlive it (docs/targets.md).
    '--heartbeat-interval 50',
    '--election-timeout 500',
  ].join(' ');

export const REDIS_COMMAND = () =>
  'redis-server --port 6379 --bind 0.0.0.0 --protected-mode no --save "" --appendonly no';
