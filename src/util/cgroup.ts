/**
 * cgroup v2 groups for client programs. A process group does not hold a program's
 * daemonised children: one that calls setsid leaves it, and one that also clears its
 * environment carries no mark a sweep could find, so it outlived the run for good. A
 * cgroup holds every descendant whatever it does, and cgroup.kill ends them all at once.
 *
 * Each client program gets its own group, <cgroup2 mount>/lockchaos/<name>, made before
 * the program starts and removed when it closes; where cgroup v2 is not mounted writable
 * (not root, an old kernel without cgroup.kill) programs run in a process group only.
 */
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from './errors.js';
import { sleep } from './monotonic-clock.js';

/** Where client program groups can be made, or why they cannot. */
export type CgroupSupport = { parent: string } | { why: string };

/** The cgroup v2 mount point: /sys/fs/cgroup on a unified host, /sys/fs/cgroup/unified on a hybrid one. */
export function cgroup2Mount(mounts = readMounts()): string | undefined {
  const found = mounts
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f[2] === 'cgroup2')
    .map((f) => f[1] as string);
  return found.find((m) => m === '/sys/fs/cgroup') ?? found[0];
}

/** /proc/self/mounts, or nothing where it cannot be read. */
export function readMounts(): string {
  try {
    return readFileSync('/proc/self/mounts', 'utf8');
  } catch {
    return '';
  }
}

let support: CgroupSupport | undefined;

/** Whether this process can make client program groups (checked once: made, written, removed). */
export function cgroupSupport(mount = cgroup2Mount()): CgroupSupport {
  if (mount === undefined) return { why: 'no cgroup v2 hierarchy is mounted' };
  const parent = join(mount, 'lockchaos');
  try {
    mkdirSync(parent, { recursive: true });
    accessSync(join(parent, 'cgroup.procs'), constants.W_OK);
    accessSync(join(parent, 'cgroup.kill'), constants.W_OK);
    return { parent };
  } catch (err) {
    return { why: `${parent} is not writable (${errorMessage(err).split('\n')[0]})` };
  }
}

const supported = (): string | undefined => {
  support ??= cgroupSupport();
  return 'parent' in support ? support.parent : undefined;
};

/** Makes the group `name` for a program; undefined where groups cannot be made (a process group then). */
export function createCgroup(name: string): string | undefined {
  const parent = supported();
  if (parent === undefined) return undefined;
  const path = join(parent, name);
  try {
    mkdirSync(path, { recursive: true });
    return path;
  } catch {
    return undefined;
  }
}

/** The names of the groups under the lockchaos parent. */
export function listCgroups(): string[] {
  const parent = supported();
  if (parent === undefined) return [];
  try {
    return readdirSync(parent, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/** The path of the group `name` (made or not), where groups are supported. */
export function cgroupPath(name: string): string | undefined {
  const parent = supported();
  return parent === undefined ? undefined : join(parent, name);
}

/** The processes in a group now (none when it is gone). */
export function cgroupPids(path: string): number[] {
  try {
    return readFileSync(join(path, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** SIGKILLs every process in the group, those it forks meanwhile too (a stopped one as well). */
export function killCgroup(path: string): void {
  try {
    writeFileSync(join(path, 'cgroup.kill'), '1');
  } catch {
    // gone already
  }
}

const populated = (path: string) => {
  try {
    return /^populated 1$/m.test(readFileSync(join(path, 'cgroup.events'), 'utf8'));
  } catch {
    return false;
  }
};

/** Kills what is in the group and removes it; false when it was still busy after `timeoutMs`. */
export async function removeCgroup(path: string, timeoutMs = 5000): Promise<boolean> {
  killCgroup(path);
  for (const until = Date.now() + timeoutMs; populated(path) && Date.now() < until; ) await sleep(20);
  try {
    rmdirSync(path);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
