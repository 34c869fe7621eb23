/**
 * A process's /proc/<pid>/stat line, parsed in one place. The command name (field 2) sits in
 * parentheses and may itself hold spaces and ')', so the fields are counted from the last
 * ')' of the line, never split from its start.
 */
import { readFileSync } from 'node:fs';

/** The fields of a stat line that lockchaos reads (proc(5) numbers them from 1). */
export interface ProcStat {
  /** Field 2, without its parentheses. */
  readonly comm: string;
  /** Field 3: R, S, D, T, t, Z, X, ... */
  readonly state: string;
  /** Field 4. */
  readonly ppid: number;
  /** Field 5: the process group. */
  readonly pgrp: number;
  /**
   * Field 22, in clock ticks since boot, as the line writes it: owner labels and warp records
   * compare it as text, and it tells a process from a later one with its pid.
   */
  readonly startTime: string;
}

/** The line's fields; undefined for a line that is not one (no ')', too few fields). */
export function parseProcStat(text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  // Field 3 on, after the ") " that ends the command name.
  const rest = text.slice(close + 2).split(' ');
  const [state, ppid, pgrp] = rest;
  const startTime = rest[19];
  if (state === undefined || ppid === undefined || pgrp === undefined || startTime === undefined) return undefined;
  return { comm: text.slice(open + 1, close), state, ppid: Number(ppid), pgrp: Number(pgrp), startTime };
}

/** The process's stat line, parsed; undefined when there is no such process (it exited) or the line is unreadable. */
export function procStatFields(pid: number | 'self'): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined;
  }
}
