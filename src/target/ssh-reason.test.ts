import { describe, expect, it } from 'vitest';
import { sshReason } from './ssh-reason.js';

const channel = { host: '10.0.0.5', port: 22, knownHosts: '/srv/inv/known_hosts' };

describe("ssh's reason", () => {
  it('names a changed host key, the host and the file, not the banner of @', () => {
    const output = [
      '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
      '@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @',
      '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@',
      'IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!',
      'Offending ED25519 key in /srv/inv/known_hosts:1',
      'Host key for 10.0.0.5 has changed and you have requested strict checking.',
      'Host key verification failed.',
    ].join('\n');
    const reason = sshReason(output, channel);
    expect(reason).toMatch(/^REMOTE HOST IDENTIFICATION HAS CHANGED for 10\.0\.0\.5:22, Host key verification failed/);
    expect(reason).toContain('/srv/inv/known_hosts');
    expect(reason).not.toContain('@@');
  });
  it('names an unknown host key and the fix', () => {
    const output =
      'No ED25519 host key is known for 10.0.0.5 and you have requested strict checking.\nHost key verification failed.\n';
    expect(sshReason(output, channel)).toBe(
      "Host key verification failed for 10.0.0.5:22 (No ED25519 host key is known for 10.0.0.5 and you have requested strict checking.): add the host's key to /srv/inv/known_hosts after checking it, or set ssh.hostKeyChecking: false to accept a new host's key",
    );
  });
  it("gives ssh's first line that says something, with the fix of a refused login", () => {
    expect(sshReason('root@10.0.0.5: Permission denied (publickey).\r\n', channel)).toBe(
      "root@10.0.0.5: Permission denied (publickey).: check ssh.user and ssh.key (or the agent's keys)",
    );
    expect(
      sshReason(
        "Warning: Permanently added '10.0.0.5' (ED25519) to the list of known hosts.\nssh: connect to host 10.0.0.5 port 22: Connection refused\n",
        { ...channel, knownHosts: undefined },
      ),
    ).toBe('ssh: connect to host 10.0.0.5 port 22: Connection refused');
    expect(sshReason('', channel)).toBe('no answer');
  });
});
