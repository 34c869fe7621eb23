/**
 * A host reached over SSH with OpenSSH's own client, as an operator would: the user's
 * agent, keys and ssh_config apply, and the host's key is checked (StrictHostKeyChecking
 * yes) unless the inventory turns it off. One master connection per host is shared by every
 * command of the run (ControlMaster), so a fault's command costs a round trip, not a
 * handshake; it is closed at the end, and one left by a killed runner exits by itself
 * after ControlPersist. Nothing secret is passed on a command line or kept: the key is a
 * path that ssh reads.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { ExecResult } from '../cluster/exec.js';
import type { SshChannel } from './inventory.js';

/** The most output a command may print before it is cut (a log command of a busy host). */
const MAX_OUTPUT = 4 * 1024 * 1024;

/** Quotes a script as one word for the remote shell. */
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

export class SshHost {
  private readonly controlDir = mkdtempSync(join(tmpdir(), 'lockchaos-ssh-'));
  /** The known_hosts file ssh reads, and writes a new host's key to when checking is off. */
  private readonly knownHosts: string | undefined;

  constructor(
    readonly channel: SshChannel,
    /** Seconds a command may take before it is given up (the host is gone, the network cut). */
    private readonly timeoutS = 30,
  ) {
    this.knownHosts = channel.hostKeyChecking ? channel.knownHosts : this.privateKnownHosts();
  }

  /**
   * With hostKeyChecking off, ssh adds a new host's key to its known_hosts file: a copy of
   * the inventory's (or the user's) in the run's own folder takes it, so that a run never
   * writes into a file the team keeps, and a changed key is still refused (the copy has
   * the old one).
   */
  private privateKnownHosts(): string {
    const copy = join(this.controlDir, 'known_hosts');
    const from = this.channel.knownHosts ?? join(homedir(), '.ssh', 'known_hosts');
    if (existsSync(from)) copyFileSync(from, copy);
    else writeFileSync(copy, '', { mode: 0o600 });
    return copy;
  }

  /** ssh's options, the same for every command of the host. */
  private options(): string[] {
    const c = this.channel;
    const o = [
      '-o',
      'BatchMode=yes',
      '-o',
      `StrictHostKeyChecking=${c.hostKeyChecking ? 'yes' : 'accept-new'}`,
      '-o',
      'ConnectTimeout=10',
      '-o',
      'ServerAliveInterval=5',
      '-o',
      'ServerAliveCountMax=3',
      '-o',
      'ControlMaster=auto',
      '-o',
      `ControlPath=${join(this.controlDir, '%C')}`,
      '-o',
      'ControlPersist=30',
      '-o',
      'LogLevel=ERROR',
      '-p',
      String(c.port),
      '-l',
      c.user,
    ];
    if (this.knownHosts) o.push('-o', `UserKnownHostsFile=${this.knownHosts}`);
    if (c.key) o.push('-i', c.key, '-o', 'IdentitiesOnly=yes');
    return o;
  }

  /** The remote command line for a script: `sh -c` (under `sudo -n` when asked). */
  remoteCommand(script: string): string {
    return `${this.channel.sudo ? 'sudo -n ' : ''}sh -c ${quote(script)}`;
  }

  /**
   * Runs a script on the host: its exit code and its output (stdout then stderr); `input`:
   * bytes for the script's stdin (a file it writes: the clock-warp helper).
   */
  run(script: string, input?: Uint8Array): Promise<ExecResult> {
    return new Promise((resolve) => {
      // `--` before the host: whatever the inventory said, ssh takes it as a host, never an option.
      const child = spawn('ssh', [...this.options(), '--', this.channel.host, this.remoteCommand(script)], {
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      }) as ChildProcessByStdio<Writable | null, Readable, Readable>;
      if (input !== undefined && child.stdin) {
        // A script that exits before reading all of it closes the pipe: its exit code says why.
        child.stdin.on('error', () => undefined);
        child.stdin.end(input);
      }
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      const keep = (into: Buffer[]) => (chunk: Buffer) => {
        if (size >= MAX_OUTPUT) return;
        size += chunk.length;
        into.push(chunk);
      };
      child.stdout.on('data', keep(out));
      child.stderr.on('data', keep(err));
      const timer = setTimeout(() => child.kill('SIGKILL'), this.timeoutS * 1000);
      child.on('error', (e) => {
        clearTimeout(timer);
        resolve({ exitCode: 127, output: `ssh could not run: ${e.message}` });
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const output = Buffer.concat([...out, ...err]).toString('utf8');
        const timedOut = signal === 'SIGKILL' ? `(no answer in ${this.timeoutS} s) ` : '';
        resolve({ exitCode: code ?? 255, output: timedOut + output });
      });
    });
  }

  /** Closes the shared connection and its socket folder. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      const child = spawn('ssh', [...this.options(), '-O', 'exit', '--', this.channel.host], { stdio: 'ignore' });
      child.on('error', () => resolve());
      child.on('close', () => resolve());
    });
    rmSync(this.controlDir, { recursive: true, force: true });
  }
}
