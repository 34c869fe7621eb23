/**
 * A process group's members, read from /proc: the client program a worker drives runs in a
 * group of its own (the shell and what it started), which a pause stops and a run ends whole.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The processes in process group pgid with their parents, from /proc (stat fields 4 and 5, after the command's ')'). */
export function groupMembers(pgid: number): { pid: number; ppid: number }[] {
  const members: { pid: number; ppid: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid) members.push({ pid: Number(entry), ppid: Number(ppid) });
    } catch {
      // exited meanwhile
    }
  }
  return members;
}
