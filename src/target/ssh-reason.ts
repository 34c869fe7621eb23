/**
 * Why ssh could not reach a host, in one line, from what ssh printed. Its first line is
 * often a banner (a changed host key opens with a row of `@`), so the line that says why is
 * picked out, and the cases an operator meets most are named with their fix.
 */
import type { SshChannel } from './inventory.js';

/** Lines of ssh's that say nothing by themselves. */
const NOISE = /^(@+.*@+|@+|Warning: Permanently added .*|\s*)$/;

export function sshReason(output: string, channel: Pick<SshChannel, 'host' | 'port' | 'knownHosts'>): string {
  const lines = output.split('\n').map((l) => l.replace(/\r$/, ''));
  const at = `${channel.host}:${channel.port}`;
  const file = channel.knownHosts ?? '~/.ssh/known_hosts';
  const has = (re: RegExp) => lines.some((l) => re.test(l));
  if (has(/REMOTE HOST IDENTIFICATION HAS CHANGED/))
    return `REMOTE HOST IDENTIFICATION HAS CHANGED for ${at}, Host key verification failed: the host's key is not the one ${file} holds; if the host was rebuilt, check its new key and replace its line there (ssh-keygen -R ${channel.host} -f ${file}), or someone may be in between`;
  if (has(/Host key verification failed/)) {
    const unknown = lines.find((l) => /host key is known for|No .* host key is known/.test(l));
    return `Host key verification failed for ${at}${unknown ? ` (${unknown.trim()})` : ''}: add the host's key to ${file} after checking it, or set ssh.hostKeyChecking: false to accept a new host's key`;
  }
  const reason = lines.find((l) => !NOISE.test(l))?.trim() ?? 'no answer';
  if (/Permission denied/.test(reason)) return `${reason}: check ssh.user and ssh.key (or the agent's keys)`;
  return reason;
}
