/**
 * node-clock over SSH: the clock-warp helper runs on the target's host (clock-scripts.ts),
 * on the pids the inventory's `process` command prints there. Before the run starts, the
 * host is checked (x86_64 Linux, root, ptrace allowed), this machine's built helper is
 * copied into the run's private folder there and tried on the service's process: a host
 * that cannot take it is one line naming why and the fix. Each warp is recorded on the host
 * and, through `onWarp`, in this machine's ledger, before the helper attaches.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import {
  type ClockChange,
  type ClockWarper,
  clockWarpHelper,
  type GroupWarp,
  parseWarpState,
  type WarpState,
} from '../cluster/clock-warp.js';
import type { ExecResult } from '../cluster/exec.js';
import { CLOCK_ENDED, isX8664Elf } from './clock-scripts.js';
import { type HostScripts, processStates } from './commands.js';
import type { SshHost } from './ssh.js';

/** The first line a failed script printed, or its exit code. */
const firstLine = (r: ExecResult) => r.output.trim().split('\n')[0] || `exit ${r.exitCode}`;

/** This machine's helper, fit to copy to an x86_64 Linux host; or why not (one line, with the fix). */
export function runnerClockHelper(): { path: string } | { why: string } {
  const path = clockWarpHelper();
  if (path === undefined)
    return {
      why: 'the clock-warp helper is not built on this machine, and node-clock copies it to the host (npm run build; it needs gcc and libc6-dev)',
    };
  const head = Buffer.alloc(20);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    readSync(fd, head, 0, 20, 0);
  } catch {
    // unreadable: said below
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (!isX8664Elf(head))
    return {
      why: `the clock-warp helper ${path} is not an x86_64 Linux program, and hosts take only that: build lockchaos on x86_64 Linux`,
    };
  return { path };
}

/**
 * Readies a host for node-clock before the run starts: checks it, copies the helper, tries
 * it on the service's process. What stands in the way, in one line with the fix, or undefined.
 */
export async function readyHostClock(host: SshHost, scripts: HostScripts): Promise<string | undefined> {
  const check = await host.run(scripts.clock.check);
  if (check.exitCode !== 0) return firstLine(check);
  const copied = await copyClockHelper(host, scripts);
  if (copied) return copied;
  const probe = await host.run(scripts.clock.probe);
  return probe.exitCode === 0 ? undefined : firstLine(probe);
}

/** Copies this machine's helper into the run's private folder on the host; what failed, or undefined. */
export async function copyClockHelper(host: SshHost, scripts: HostScripts): Promise<string | undefined> {
  const helper = runnerClockHelper();
  if ('why' in helper) return helper.why;
  const bytes = readFileSync(helper.path);
  const r = await host.run(scripts.clock.install(bytes.length), bytes);
  return r.exitCode === 0 ? undefined : firstLine(r);
}

/** Before a heal: the helper copied again where a warp is recorded and the helper is gone (a heal needs it). */
export async function helperForHeal(host: SshHost, scripts: HostScripts): Promise<void> {
  const missing = await host.run(scripts.clock.missing);
  if (missing.exitCode === 0) await copyClockHelper(host, scripts);
}

/** The helper's JSON line: the last line of what the script printed. */
function stateOf(r: ExecResult, what: string): WarpState {
  if (r.exitCode !== 0) throw new Error(`${what}: ${firstLine(r)}`);
  return parseWarpState(r.output.trim().split('\n').pop() ?? '');
}

/** The pids a script printed, space-separated (a host's output: integers only). */
export function listedPids(output: string): number[] {
  return output
    .trim()
    .split(/\s+/)
    .filter((w) => /^\d{1,10}$/.test(w))
    .map(Number)
    .filter((p) => p > 0 && p <= 0x3fffffff);
}

/** A host's clocks, warped by its own helper over SSH. */
export class SshClockWarper implements ClockWarper {
  readonly noneFound = "no live process of the service found on the host by the inventory's commands.process";
  constructor(
    private readonly host: SshHost,
    private readonly scripts: HostScripts,
    /** Called before a warp reaches the host (true) and once its process has true time again or is gone (false). */
    private readonly onWarp: (pid: number, warped: boolean) => void = () => undefined,
  ) {}

  async pids(): Promise<number[]> {
    const r = await this.host.run(this.scripts.probe);
    return r.exitCode === 0 ? Object.keys(processStates(r.output)).map(Number) : [];
  }

  async warp(_runId: string, pids: number[], change: ClockChange): Promise<GroupWarp> {
    const out: GroupWarp = { warped: [], ended: [], failed: [] };
    for (const pid of pids) {
      this.onWarp(pid, true);
      const r = await this.host.run(this.scripts.clock.warp(pid, change));
      if (r.exitCode === 0) out.warped.push(pid);
      else if (r.exitCode === CLOCK_ENDED) {
        this.onWarp(pid, false);
        out.ended.push(pid);
      } else out.failed.push({ pid, why: firstLine(r) });
    }
    return out;
  }

  async change(pid: number, change: ClockChange): Promise<WarpState> {
    return stateOf(await this.host.run(this.scripts.clock.set(pid, change)), `process ${pid}'s clock not changed`);
  }

  async read(pid: number): Promise<WarpState> {
    return stateOf(await this.host.run(this.scripts.clock.read(pid)), `process ${pid}'s clock not read`);
  }

  async restore(_runId: string, pid: number): Promise<WarpState | undefined> {
    const r = await this.host.run(this.scripts.clock.restore(pid));
    if (r.exitCode === 0 && r.output.trim() === 'ended') {
      this.onWarp(pid, false);
      return undefined;
    }
    const state = stateOf(r, `process ${pid}'s clock not restored`);
    this.onWarp(pid, false);
    return state;
  }

  async born(warped: readonly number[]): Promise<number[]> {
    if (warped.length === 0) return [];
    const r = await this.host.run(this.scripts.clock.born(warped));
    return r.exitCode === 0 ? listedPids(r.output) : [];
  }

  async alive(pid: number): Promise<boolean> {
    return (await this.host.run(this.scripts.clock.alive(pid))).exitCode === 0;
  }
}
