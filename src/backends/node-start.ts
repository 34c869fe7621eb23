/**
 * How a server starts in a node container when it keeps data: a bash prologue, then `exec`
 * of the server, so the server is PID 1 and a signal to the container reaches it. The
 * kill-node fault with data loss leaves /data/.lose-data behind; the next start wipes
 * /data first. And how the runner waits for such a server to serve.
 */
import { createConnection } from 'node:net';
import { sleep } from '../util/monotonic-clock.js';

/** Quotes one argument for bash. */
export const shellQuote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

export const DATA_DIR = '/data';

/**
 * argv for the container: wipe /data if asked, run `prepare` (bash; `$DATA_WIPED` is 1 when
 * this start wiped the data), then exec `server`.
 */
export function startWithData(server: string[], prepare: string[] = []): string[] {
  const script = [
    `mkdir -p ${DATA_DIR}`,
    'DATA_WIPED=0',
    `if [ -f ${DATA_DIR}/.lose-data ]; then rm -rf ${DATA_DIR}/* ${DATA_DIR}/.lose-data; DATA_WIPED=1; echo 'lockchaos: data wiped'; fi`,
    ...prepare,
    `exec ${server.map(shellQuote).join(' ')}`,
  ];
  return ['bash', '-c', script.join('\n')];
}

/**
 * bash, for a start script: until `condition` (a bash command) succeeds, or for
 * `atMostS` seconds (EPOCHREALTIME, in microseconds without its point), then on either way.
 * Used where a server's first start waits for a peer so as not to wait out the server's own
 * retry period; never longer than this, so a peer that does not come costs what it did.
 */
export function waitAtMost(condition: string, atMostS = 3): string {
  return [
    `deadline=$(( \${EPOCHREALTIME/./} + ${atMostS * 1_000_000} ))`,
    `until ${condition} || (( \${EPOCHREALTIME/./} > deadline )); do sleep 0.02; done`,
  ].join('; ');
}

/**
 * What a readiness probe throws when the port answers in another protocol (an sshd's banner
 * where Redis's reply was due): waiting will not make it the service, so the wait ends now.
 */
export class NotTheService extends Error {}

/**
 * Polls `probe` every intervalMs until it answers true; after deadlineMs throws with the
 * last reason it gave (a string, or what it threw); at once when it throws NotTheService.
 */
export async function waitUntilReady(
  what: string,
  deadlineMs: number,
  intervalMs: number,
  probe: () => Promise<true | string | undefined>,
): Promise<void> {
  const start = Date.now();
  let last: unknown;
  while (Date.now() - start < deadlineMs) {
    try {
      const answer = await probe();
      if (answer === true) return;
      if (answer !== undefined) last = answer;
    } catch (err) {
      if (err instanceof NotTheService) throw new Error(`${what} answers, but not as the service: ${err.message}`);
      last = err;
    }
    await sleep(intervalMs);
  }
  throw new Error(`${what} not ready after ${deadlineMs} ms: ${String(last)}`);
}

/**
 * Readiness for any server: a TCP connection to ip:port is accepted. For a node spec whose
 * server has no ready-made check (`ready: (node) => waitForTcp(node.ip, node.port)`).
 */
export function waitForTcp(ip: string, port: number, deadlineMs = 30_000): Promise<void> {
  return waitUntilReady(`${ip}:${port}`, deadlineMs, 50, () => {
    return new Promise<true | string>((resolve) => {
      const socket = createConnection({ host: ip, port, timeout: 500 });
      const done = (answer: true | string) => {
        socket.destroy();
        resolve(answer);
      };
      socket.once('connect', () => done(true));
      socket.once('timeout', () => done('connect timed out'));
      socket.once('error', (err) => done(err.message));
    });
  });
}
