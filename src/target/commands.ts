/**
 * The shell scripts node faults run on a host reached over SSH, one per verb, built from the
 * inventory's commands and the run's id. They are the same strings `--dry-run` prints and
 * the channel executes, so what is shown is what runs. Every trace a script leaves on the
 * host carries the run's tag: the iptables rules' comment, and the files under /tmp that
 * name the processes it stopped and the services it killed, from which a heal, or the next
 * start after the runner was killed, undoes exactly what this run did.
 */
import { shellQuote } from '../backends/node-start.js';
import type { NodeCommands } from './inventory.js';

/** The tag on every rule and file of a run on a host. */
export const hostTag = (runId: string) => `lockchaos-${runId}`;

/** A file of the run's on the host: the pids it stopped, or a mark that it killed the service. */
const marker = (runId: string, what: 'stopped' | 'killed') => `/tmp/${hostTag(runId)}.${what}`;

/** The service's pids on one line, or exit 3 naming the command that found none. */
function findPids(commands: NodeCommands): string {
  const find = commands.process ?? 'false';
  return [
    `pids=$( ${find} ) || true`,
    'pids=$(echo $pids)',
    `[ -n "$pids" ] || { echo "no process found by: ${find.replace(/["`$\\]/g, '\\$&')}" >&2; exit 3; }`,
  ].join('\n');
}

/** Every verb a run may execute on a host, as scripts for `sh`. */
export function hostScripts(runId: string, commands: NodeCommands) {
  const stopped = marker(runId, 'stopped');
  const killed = marker(runId, 'killed');
  const path = commands.path ? `PATH=${shellQuote(commands.path)}:$PATH; export PATH\n` : '';
  const script = (...lines: string[]) => path + lines.join('\n');
  const iptables = (rest: string) => `iptables ${rest}`;
  const states = 'for p in $pids; do printf "%s:%s " "$p" "$(cut -d" " -f3 /proc/$p/stat)"; done';
  return {
    /** The service's pids and each one's state letter, "123:S" (is it there, is it running). */
    probe: script(findPids(commands), states),
    /**
     * SIGSTOP to every process of the service, recorded first so that a crash still resumes
     * them; their states read once each shows stopped (T), for up to a second: a process
     * running on another CPU stops when the signal reaches it, and read at once it said R.
     */
    pause: script(
      findPids(commands),
      `echo "$pids" >> ${stopped}`,
      'kill -STOP $pids',
      'n=0; while [ $n -lt 100 ]; do left=; for p in $pids; do s=$(cut -d" " -f3 /proc/$p/stat 2>/dev/null); [ -z "$s" ] || [ "$s" = T ] || left=1; done; [ -z "$left" ] && break; sleep 0.01; n=$((n+1)); done',
      states,
    ),
    /** SIGCONT to what this run stopped. */
    resume: script(`if [ -f ${stopped} ]; then kill -CONT $(cat ${stopped}) 2>/dev/null; rm -f ${stopped}; fi`, 'true'),
    /** SIGKILL to every process of the service; marked, so that a crash still starts it again. */
    kill: script(findPids(commands), `touch ${killed}`, 'kill -KILL $pids', 'echo $pids'),
    /** Starts the service when none of its processes runs (after a kill); its output is not kept. */
    start: script(
      `pids=$( ${commands.process ?? 'false'} ) || true`,
      `if [ -z "$pids" ]; then ( ${commands.start ?? 'false'} ) >/dev/null 2>&1 </dev/null || exit $?; fi`,
      `rm -f ${killed}`,
    ),
    /** Whether iptables can be run here (partition, loss). */
    canIptables: script(iptables('-S INPUT >/dev/null')),
    /**
     * Everything the run left, undone: its rules removed, what it stopped resumed, what it
     * killed started (the heal at the end, and the next start's after a crash).
     */
    heal: script(
      `if [ -f ${stopped} ]; then kill -CONT $(cat ${stopped}) 2>/dev/null; rm -f ${stopped}; fi`,
      `if command -v iptables-save >/dev/null && iptables-save 2>/dev/null | grep -q -- '${hostTag(runId)}'; then`,
      `  iptables-save | grep -v -- '${hostTag(runId)}' | iptables-restore`,
      'fi',
      `if [ -f ${killed} ]; then`,
      `  pids=$( ${commands.process ?? 'false'} ) || true`,
      `  if [ -z "$pids" ]; then ( ${commands.start ?? 'false'} ) >/dev/null 2>&1 </dev/null; fi`,
      `  rm -f ${killed}`,
      'fi',
      'true',
    ),
    /** The service's recent log, when the inventory says how to get it. */
    logs: commands.logs === undefined ? undefined : script(commands.logs),
  };
}

export type HostScripts = ReturnType<typeof hostScripts>;

/** "123:S 124:T " (a probe's or a pause's output) as pid → state letter. */
export function processStates(output: string): Record<string, string> {
  const states: Record<string, string> = {};
  for (const word of output.trim().split(/\s+/)) {
    const [pid, state] = word.split(':');
    if (pid && /^\d+$/.test(pid) && state) states[pid] = state;
  }
  return states;
}
