/**
 * The shell scripts node faults run on a host reached over SSH, one per verb, built from the
 * inventory's commands and the run's id. They are the same strings `--dry-run` prints and
 * the channel executes, so what is shown is what runs. Every trace a script leaves on the
 * host carries the run's tag: the iptables rules' comment, and the files that name the
 * processes it stopped, the services it killed, and the run itself (its runner, its
 * commands, a heartbeat), from which a heal, the next start after the runner was killed, or
 * a `cleanup --target` from another machine undoes exactly what this run did.
 *
 * Those files live in one folder per remote user, /var/tmp/lockchaos-<uid>, made with mode
 * 0700 and used only when it is a real folder of that user's with that mode (a folder or a
 * link another user planted there is refused, and nothing is written through it or read
 * from it): in /tmp, a link planted at a predictable name made root append to /etc/victim.
 * A fixed folder, not one per run, so that a cleanup finds every run's record on the host
 * whichever machine started it; /var/tmp, not $HOME, because `sudo` sets HOME differently
 * on different systems, and not /tmp, which a reboot or a cleaner may empty under a run.
 *
 * Scripts exit 3 when the service has no live process, 4 when they refuse a file or folder
 * another user could have made, 5 when what they did did not take (a process still stopped,
 * a rule still there, a service that did not come back); the first line says which.
 */
import { shellQuote } from '../backends/node-start.js';
import { CLOCK_PRELUDE, clockScripts, HEAL_CLOCKS, HEAL_CLOCKS_CHECK, HEAL_CLOCKS_FILES } from './clock-scripts.js';
import type { NodeCommands } from './inventory.js';

/** The tag on every rule and file of a run on a host. */
export const hostTag = (runId: string) => `lockchaos-${runId}`;

/** How often a run touches its record on each host, and when a record not touched counts as left by a runner that is gone. */
export const HEARTBEAT_S = 10;
export const STALE_S = 3 * HEARTBEAT_S;

/** A run's id as the scripts take it (a host's listing is hostile input too). */
export const RUN_ID = /^[0-9a-f]{1,32}$/;

/**
 * What every script begins with: the private folder, and the checks that keep what another
 * user made on the host from being written through or read.
 */
const PRELUDE = [
  'lc_dir=/var/tmp/lockchaos-$(id -u)',
  'lc_refuse() { echo "refused: $1: lockchaos writes nothing through it and reads nothing from it (another user may have made it); remove it" >&2; exit 4; }',
  // /var/tmp must keep others from renaming our folder away (sticky, or writable by us alone).
  'lc_open() {',
  '  [ -k /var/tmp ] || case $(stat -c %a /var/tmp) in *[0145][0145]) ;; *) lc_refuse "/var/tmp is writable by others and not sticky";; esac',
  '  [ -e "$lc_dir" ] || [ -L "$lc_dir" ] || mkdir -m 700 "$lc_dir" 2>/dev/null',
  '  { [ -d "$lc_dir" ] && [ ! -L "$lc_dir" ] && [ "$(stat -c %u:%a "$lc_dir")" = "$(id -u):700" ]; } || lc_refuse "$lc_dir is not a folder of $(id -un) with mode 0700"',
  '}',
  // A file of the run's: absent, or a regular file of this user's.
  'lc_file() { { [ ! -e "$1" ] && [ ! -L "$1" ]; } || { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(stat -c %u "$1")" = "$(id -u)" ]; } || lc_refuse "$1 is not a regular file of $(id -un)"; }',
  // A process's state letter, read after the ")" that ends its name (a name may hold spaces).
  'lc_state() { sed \'s/.*) //; s/ .*//\' "/proc/$1/stat" 2>/dev/null; }',
  // The pids among the words that are live processes: a zombie (Z) is dead, though pgrep finds it.
  'lc_live() { for p in $*; do case $p in \'\'|*[!0-9]*) continue;; esac; s=$(lc_state $p); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ] && printf \'%s \' $p; done; }',
  "lc_stopped() { for p in $*; do case $p in ''|*[!0-9]*) continue;; esac; [ \"$(lc_state $p)\" = T ] && printf '%s ' $p; done; }",
  // The service's live pids in $pids (what the inventory's command printed: $lc_all).
  'lc_find() { lc_all=$( eval "$lc_process" ) || true; pids=$(set -f; lc_live $lc_all); pids=$(echo $pids); }',
  'lc_states() { for p in $pids; do printf "%s:%s " "$p" "$(lc_state $p)"; done; }',
];

/** The service's live pids in $pids, or exit 3 naming the command (and a zombie it found). */
const FIND_LIVE = [
  'lc_find',
  '[ -n "$pids" ] || { if [ -n "$(echo $lc_all)" ]; then echo "only dead processes (zombies, state Z: their parent has not reaped them) found by: $lc_process" >&2; else echo "no process found by: $lc_process" >&2; fi; exit 3; }',
];

/** Runs the inventory's start command, detached from the script's input and output. */
const START_SERVICE = '( eval "$lc_start" ) >/dev/null 2>&1 </dev/null';

/**
 * SIGSTOP to every process of the service, recorded first so that a crash still resumes
 * them (nothing is stopped when the record cannot be written); their states read once
 * each shows stopped (T), for up to a second: a process running on another CPU stops
 * when the signal reaches it, and read at once it said R.
 */
const PAUSE = [
  ...FIND_LIVE,
  'lc_open',
  'lc_file "$lc_stopped_file"',
  'echo "$pids" >> "$lc_stopped_file" || { echo "could not record the pids in $lc_stopped_file: nothing stopped" >&2; exit 4; }',
  'kill -STOP $pids',
  'n=0; while [ $n -lt 100 ]; do left=; for p in $pids; do s=$(lc_state $p); [ -z "$s" ] || [ "$s" = T ] || left=1; done; [ -z "$left" ] && break; sleep 0.01; n=$((n+1)); done',
  'lc_states',
];

/**
 * SIGCONT to what this run stopped, then its effect checked: none of those processes, and
 * none of the service's, is still stopped (T) a second later; else exit 5 naming them.
 */
const RESUME = [
  'lc_open',
  'lc_file "$lc_stopped_file"',
  'stopped=; [ ! -f "$lc_stopped_file" ] || stopped=$(set -f; lc_live $(cat "$lc_stopped_file"))',
  '[ -z "$stopped" ] || kill -CONT $stopped 2>/dev/null',
  'n=0; while :; do lc_find; left=$(lc_stopped $stopped $pids); { [ -z "$left" ] || [ $n -ge 100 ]; } && break; sleep 0.01; n=$((n+1)); done',
  '[ -z "$left" ] || { echo "still stopped (state T) after SIGCONT: pid $(echo $left)" >&2; exit 5; }',
  'rm -f "$lc_stopped_file"',
];

/** SIGKILL to every live process of the service; marked first, so that a crash still starts it again. */
const KILL = [
  ...FIND_LIVE,
  'lc_open',
  'lc_file "$lc_killed_file"',
  ': >> "$lc_killed_file" || { echo "could not mark $lc_killed_file: nothing killed" >&2; exit 4; }',
  'kill -KILL $pids',
  // Dead before it returns (a zombie at most), so that a start right after does not take it for the service.
  'n=0; while [ -n "$(lc_live $pids)" ] && [ $n -lt 100 ]; do sleep 0.01; n=$((n+1)); done',
  'echo $pids',
];

/**
 * Starts the service when none of its processes is alive (a zombie is not: a host whose
 * init does not reap keeps one), then waits up to 10 s for a live one; else exit 5.
 */
const START = [
  'lc_open',
  'lc_file "$lc_killed_file"',
  'lc_find',
  `if [ -z "$pids" ]; then ${START_SERVICE} || { c=$?; echo "the start command exited with code $c: $lc_start" >&2; exit $c; }; fi`,
  'n=0; while lc_find; [ -z "$pids" ] && [ $n -lt 100 ]; do sleep 0.1; n=$((n+1)); done',
  '[ -n "$pids" ] || { echo "the service did not start: no live process found by: $lc_process after: $lc_start" >&2; exit 5; }',
  'rm -f "$lc_killed_file"',
];

/**
 * Everything the run left, undone: its rules removed, what it stopped resumed, what it
 * killed started (the heal at the end, the next start's after a crash, and a cleanup's,
 * with the commands the run's record names when it is there), then checked for up to 10
 * s (1 s unless a service started is still to come up): exit 5 and one line "left: ..." naming
 * what is still there (the record kept, for the next try); else the run's files removed.
 */
const HEAL = [
  'lc_open',
  'lc_file "$lc_record"; lc_file "$lc_stopped_file"; lc_file "$lc_killed_file"',
  'lc_path=; [ ! -f "$lc_record" ] || . "$lc_record"',
  '[ -z "$lc_path" ] || { PATH=$lc_path:$PATH; export PATH; }',
  'stopped=; [ ! -f "$lc_stopped_file" ] || stopped=$(set -f; lc_live $(cat "$lc_stopped_file"))',
  '[ -z "$stopped" ] || kill -CONT $stopped 2>/dev/null',
  ...HEAL_CLOCKS,
  'lc_rules() { command -v iptables-save >/dev/null || { echo 0; return; }; iptables-save 2>/dev/null | grep -c -- "$lc_tag"; }',
  '[ "$(lc_rules)" = 0 ] || { iptables-save | grep -v -- "$lc_tag" | iptables-restore; }',
  // A start command that failed brings nothing up: said at once, not waited on.
  'start_rc=0',
  `if [ -f "$lc_killed_file" ]; then lc_find; [ -n "$pids" ] || { ${START_SERVICE}; start_rc=$?; }; fi`,
  'n=0; while :; do',
  '  lc_find; left=; starting=',
  '  t=$(lc_stopped $stopped $pids); [ -z "$t" ] || left="$left; stopped (state T): pid $(echo $t)"',
  '  r=$(lc_rules); [ "$r" = 0 ] || left="$left; $r iptables rules tagged $lc_tag"',
  ...HEAL_CLOCKS_CHECK,
  '  [ ! -f "$lc_killed_file" ] || [ -n "$pids" ] || { [ "$start_rc" != 0 ] || starting=1; left="$left; the service is not running (no live process found by: $lc_process)"; }',
  // A process still stopped or a rule still there a second on stays so; only a service
  // coming up may take the full 10 s.
  '  { [ -z "$left" ] || [ $n -ge 100 ] || { [ $n -ge 10 ] && [ -z "$starting" ]; }; } && break; sleep 0.1; n=$((n+1))',
  'done',
  '[ "$start_rc" = 0 ] || [ -n "$pids" ] || left="$left; its start command exited with code $start_rc: $lc_start"',
  '[ -z "$left" ] || { echo "left:$left" | sed \'s/^left:; /left: /\' >&2; exit 5; }',
  `rm -f "$lc_stopped_file" "$lc_killed_file" ${HEAL_CLOCKS_FILES} "$lc_record"`,
];

/** Every verb a run may execute on a host, as scripts for `sh`. */
export function hostScripts(runId: string, commands: NodeCommands) {
  const tag = hostTag(runId);
  const path = commands.path ? `PATH=${shellQuote(commands.path)}:$PATH; export PATH\n` : '';
  const head = [
    ...PRELUDE,
    `lc_tag=${tag}`,
    `lc_process=${shellQuote(commands.process ?? 'false')}`,
    `lc_start=${shellQuote(commands.start ?? 'false')}`,
    'lc_stopped_file=$lc_dir/$lc_tag.stopped; lc_killed_file=$lc_dir/$lc_tag.killed; lc_record=$lc_dir/$lc_tag.run',
    ...CLOCK_PRELUDE,
  ];
  /** What every script but the log's begins with: a dry run shows it once. */
  const shared = `${path}${head.join('\n')}\n`;
  const script = (...lines: string[]) => shared + lines.join('\n');
  return {
    shared,
    /** The service's live pids and each one's state letter, "123:S" (is it there, is it running). */
    probe: script(...FIND_LIVE, 'lc_states'),
    /**
     * The run's record on the host, written before anything else it does there: its runner
     * (the owner label), its commands (a cleanup from another machine heals with them), and
     * by its time, the heartbeat (touched every HEARTBEAT_S while the run goes).
     */
    record: (owner: string) => {
      const fields = {
        lc_owner: owner,
        lc_process: commands.process ?? 'false',
        lc_start: commands.start ?? 'false',
        lc_path: commands.path ?? '',
      };
      const lines = Object.entries(fields).map(([k, v]) => shellQuote(`${k}=${shellQuote(v)}`));
      return script(
        'lc_open',
        'lc_file "$lc_record"',
        `printf '%s\\n' ${lines.join(' ')} > "$lc_record.new" && mv -f "$lc_record.new" "$lc_record" || { echo "could not write $lc_record" >&2; exit 4; }`,
      );
    },
    heartbeat: script('lc_open', 'lc_file "$lc_record"', '[ ! -f "$lc_record" ] || touch "$lc_record"'),
    pause: script(...PAUSE),
    resume: script(...RESUME),
    kill: script(...KILL),
    start: script(...START),
    /** Whether iptables can be run here (partition, loss). */
    canIptables: `${path}iptables -S INPUT >/dev/null`,
    heal: script(...HEAL),
    /** node-clock's scripts (clock-scripts.ts). */
    clock: clockScripts(script),
    /** The service's recent log, when the inventory says how to get it. */
    logs: commands.logs === undefined ? undefined : path + commands.logs,
  };
}

export type HostScripts = ReturnType<typeof hostScripts>;

/**
 * Lists the runs that left traces on the host, one line each: "run <id> <seconds since its
 * heartbeat> <owner>" for a run with a record, "trace <id>" for a rule or a file of a run
 * with none (a heal that lost it, an older lockchaos). Read by `cleanup --target`.
 */
export const HOST_LISTING = [
  ...PRELUDE,
  '[ -d "$lc_dir" ] || [ -L "$lc_dir" ] || exit 0',
  'lc_open',
  'now=$(date +%s)',
  'for f in "$lc_dir"/lockchaos-*; do',
  '  [ -f "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %u "$f")" = "$(id -u)" ] || continue',
  '  base=$(basename "$f"); id=$(echo "$base" | sed \'s/^lockchaos-//; s/[.].*$//\')',
  '  case $base in',
  '    *.run) owner=$( . "$f"; echo "$lc_owner" ); echo "run $id $((now - $(stat -c %Y "$f"))) $owner";;',
  '    *.stopped|*.killed|*.warped|*.clock-warp) echo "trace $id";;',
  '  esac',
  'done',
  "! command -v iptables-save >/dev/null || iptables-save 2>/dev/null | grep -o -- 'lockchaos-[0-9a-f]*' | sort -u | sed 's/^lockchaos-/trace /'",
].join('\n');

/** A host's listing (HOST_LISTING) read: each run's id, and for one with a record, its heartbeat's age and its runner. */
export function listedRuns(output: string): { runId: string; ageS?: number; owner?: string }[] {
  const runs = new Map<string, { runId: string; ageS?: number; owner?: string }>();
  for (const line of output.split('\n')) {
    const [what, id, age, owner] = line.trim().split(' ');
    if (!id || !RUN_ID.test(id)) continue;
    if (what === 'run' && age && /^-?\d+$/.test(age)) runs.set(id, { runId: id, ageS: Number(age), owner });
    else if (what === 'trace' && !runs.has(id)) runs.set(id, { runId: id });
  }
  return [...runs.values()];
}

/** What a heal's output says is left (its "left:" or "refused:" line), or undefined when it healed. */
export function healLeft(r: { exitCode: number; output: string }): string | undefined {
  if (r.exitCode === 0) return undefined;
  const lines = r.output.trim().split('\n');
  return lines.find((l) => /^(left|refused):/.test(l)) ?? (lines.pop() || `the heal exited with code ${r.exitCode}`);
}

/** "123:S 124:T " (a probe's or a pause's output) as pid → state letter. */
export function processStates(output: string): Record<string, string> {
  const states: Record<string, string> = {};
  for (const word of output.trim().split(/\s+/)) {
    const [pid, state] = word.split(':');
    if (pid && /^\d+$/.test(pid) && state) states[pid] = state;
  }
  return states;
}
