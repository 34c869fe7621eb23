/**
 * A process group's members, read from /proc: the client program a worker drives runs in a
 * group of its own (the shell and what it started), which a pause stops and a run ends whole.
 */
import { readdirSync } from 'node:fs';
import { procStatFields } from './proc-stat.js';

/** The processes in process group pgid with their parents, from /proc (stat fields 4 and 5). */
export function groupMembers(pgid: number): { pid: number; ppid: number }[] {
  const members: { pid: number; ppid: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStatFields(Number(entry)); // undefined: exited meanwhile
    if (stat?.pgrp === pgid) members.push({ pid: Number(entry), ppid: stat.ppid });
  }
  return members;
}
