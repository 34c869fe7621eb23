/**
 * node-clock on a host reached over SSH: the clock-warp helper (native/clock-warp/) runs on
 * that host, on the pids the inventory's `process` command prints, as it runs here on a
 * container's host pids. These are the scripts it takes there, one per verb, built from
 * the run's id and checked values only (a pid is a positive integer, a change's numbers are
 * finite), after the shared beginning of commands.ts (the private folder, its checks).
 *
 * The helper is this machine's built binary, copied over the channel (its bytes on the
 * script's stdin), not its C source compiled on the host: it is linked statically, so it
 * runs on any x86_64 Linux whatever its libc, while a compile there needs gcc, binutils and
 * a static libc (libc6-dev; glibc-static, often missing on RHEL) on every host, and the
 * helper's stub is x86_64 code in any case. It is written to $lc_dir/lockchaos-<run>.clock-warp:
 * the run's private folder (commands.ts: a real folder of the remote user's, mode 0700, no
 * link), where no other user can plant a link or a file, under a name of the run's; through
 * a `.new` file renamed into place, so that a half-written copy never runs. The heal at the
 * end (and after a crash, and `cleanup --target`) restores every process the run recorded
 * as warped, and those they started meanwhile, then removes the helper.
 *
 * Each warp is recorded on the host before the helper attaches: `<pid> <start time>` in
 * $lc_dir/lockchaos-<run>.warped (the start time tells the process from a later one with
 * its pid), and forgotten once the process has its true clock back.
 */
import { shellQuote } from '../backends/node-start.js';
import type { ClockChange } from '../cluster/clock-warp.js';
import { changeArgs } from '../cluster/clock-warp.js';

/** Exit code of a clock script whose process ended (nothing to warp or restore). */
export const CLOCK_ENDED = 3;
/** Exit code of the host check when the host cannot take clock-warp (the first line says why). */
export const CLOCK_UNFIT = 6;

/** The shell functions the clock scripts and the heal share (after commands.ts's PRELUDE). */
export const CLOCK_PRELUDE = [
  'lc_cw=$lc_dir/$lc_tag.clock-warp; lc_warped_file=$lc_dir/$lc_tag.warped',
  // /proc/<pid>/stat's start time (field 22, the 20th after the name's ")").
  "lc_began() { sed 's/.*) //' \"/proc/$1/stat\" 2>/dev/null | cut -d' ' -f20; }",
  'lc_helper() { lc_file "$lc_cw"; [ -f "$lc_cw" ] && [ -x "$lc_cw" ] || { echo "the clock-warp helper is not at $lc_cw (the run copies it there at its start)" >&2; exit 4; }; }',
  // The recorded pids still the processes warped (same start time).
  'lc_warped() { [ -f "$lc_warped_file" ] || return 0; while read -r p st; do case $p in \'\'|*[!0-9]*) continue;; esac; [ -n "$st" ] && [ "$(lc_began $p)" = "$st" ] && printf \'%s \' $p; done < "$lc_warped_file"; }',
  // The live children of the pids (a PostgreSQL backend forked while its postmaster was warped inherits the warp).
  'lc_kids() { cat /proc/[0-9]*/stat 2>/dev/null | sed -n \'s/^\\([0-9]*\\) .*) [A-Za-z] \\([0-9]*\\) .*/\\1 \\2/p\' | while read -r c pp; do for p in $*; do [ "$pp" = "$p" ] && printf \'%s \' $c; done; done; }',
  // Whether the process reads a warped clock: yes, no, or (not read, and alive) yes, to be safe.
  'lc_is_warped() { o=$("$lc_cw" read $1 2>&1); case $o in *\'"warped":false\'*) return 1;; *\'"warped":true\'*) return 0;; esac; s=$(lc_state $1); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]; }',
  'lc_forget() { [ -f "$lc_warped_file" ] || return 0; lc_file "$lc_warped_file.new"; grep -v "^$1 " "$lc_warped_file" > "$lc_warped_file.new"; if [ -s "$lc_warped_file.new" ]; then mv -f "$lc_warped_file.new" "$lc_warped_file"; else rm -f "$lc_warped_file.new" "$lc_warped_file"; fi; }',
];

/**
 * The heal's part for clocks, before its checks: every recorded process still the one
 * warped, and its children, given the true clock back ("clock restored: pid N" each);
 * `$lc_clocks` then holds them, for the check that they read true time.
 */
export const HEAL_CLOCKS = [
  'lc_file "$lc_warped_file"; lc_file "$lc_cw"',
  'lc_clocks=$(lc_warped); [ -z "$lc_clocks" ] || lc_clocks="$lc_clocks $(lc_kids $lc_clocks)"',
  'for p in $lc_clocks; do [ -x "$lc_cw" ] && lc_is_warped $p && "$lc_cw" restore $p >/dev/null 2>&1 && echo "clock restored: pid $p"; done',
];

/** The heal's check of the clocks (inside its loop): one still warped, or with no helper to restore it, is left. */
export const HEAL_CLOCKS_CHECK = [
  '  w=; for p in $lc_clocks; do if [ -x "$lc_cw" ]; then ! lc_is_warped $p || w="$w $p"; else s=$(lc_state $p); [ -z "$s" ] || [ "$s" = Z ] || w="$w $p"; fi; done',
  '  [ -z "$w" ] || left="$left; clock still warped: pid $(echo $w)$([ -x "$lc_cw" ] || echo " (the clock-warp helper is gone from $lc_cw: a heal from the runner copies it again)")"',
];

/** What the heal removes of the clocks once all is healed. */
export const HEAL_CLOCKS_FILES = '"$lc_warped_file" "$lc_warped_file.new" "$lc_cw" "$lc_cw.new"';

/** What --dry-run shows in place of a pid and a change: the scripts are otherwise the run's own. */
export const SHOWN = { pid: '<pid>', change: '<--jump-ms N | --offset-ms N | --rate R>' } as const;
type Pid = number | typeof SHOWN.pid;
type Change = ClockChange | typeof SHOWN.change;

/** A pid as a script takes it: a positive integer, else refused (it came from a host's output). */
export function scriptPid(pid: Pid): string {
  if (pid === SHOWN.pid) return pid;
  if (!Number.isInteger(pid) || pid <= 0 || pid > 0x3fffffff) throw new Error(`not a process id: ${pid}`);
  return String(pid);
}

/** The helper's arguments for a change, quoted for the script (finite numbers only: changeArgs checks). */
const changeWords = (change: Change) =>
  change === SHOWN.change ? change : changeArgs(change).map(shellQuote).join(' ');

/** The first four bytes of an ELF file, and x86-64's e_machine (62) at offset 18, little-endian. */
export function isX8664Elf(head: Uint8Array): boolean {
  return (
    head.length >= 20 &&
    head[0] === 0x7f &&
    head[1] === 0x45 &&
    head[2] === 0x4c &&
    head[3] === 0x46 &&
    head[18] === 62 &&
    head[19] === 0
  );
}

/**
 * The clock scripts, each from `script` (commands.ts: the shared beginning, then the lines;
 * CLOCK_PRELUDE is part of it).
 */
export function clockScripts(script: (...lines: string[]) => string) {
  return {
    /**
     * Whether the host can take clock-warp at all: x86_64 Linux, root (ptrace of the
     * service's processes), and ptrace not shut off (kernel.yama.ptrace_scope 3). Exit 6 and
     * a line naming the problem and the fix; nothing written.
     */
    check: script(
      `a=$(uname -s)/$(uname -m); [ "$a" = Linux/x86_64 ] || { echo "clock-warp runs on x86_64 Linux only, and this host is $a: choose clock (Redis TTLs) or a client-side fault" >&2; exit ${CLOCK_UNFIT}; }`,
      `[ "$(id -u)" = 0 ] || { echo "clock-warp needs root on the host to ptrace the service, and ssh logs in as $(id -un): log in as root or set ssh.sudo" >&2; exit ${CLOCK_UNFIT}; }`,
      `s=$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0); [ "$s" != 3 ] || { echo "kernel.yama.ptrace_scope is 3 on the host: no process may be ptraced (until a reboot): boot it with ptrace_scope 1 or lower" >&2; exit ${CLOCK_UNFIT}; }`,
    ),
    /** The helper from stdin (`bytes` of it), made executable in the run's private folder. */
    install: (bytes: number) =>
      script(
        'lc_open',
        'lc_file "$lc_cw"; lc_file "$lc_cw.new"',
        'rm -f "$lc_cw.new"',
        `( umask 077; cat > "$lc_cw.new" ) && [ "$(wc -c < "$lc_cw.new" | tr -d ' ')" = ${bytes} ] && chmod 700 "$lc_cw.new" && mv -f "$lc_cw.new" "$lc_cw" || { rm -f "$lc_cw.new"; echo "could not write the clock-warp helper to $lc_cw" >&2; exit 4; }`,
      ),
    /** Whether a heal needs the helper copied again: a warp recorded, and no helper (exit 0: it does). */
    missing: script('lc_open', '[ -f "$lc_warped_file" ] && ! { [ -f "$lc_cw" ] && [ -x "$lc_cw" ]; }'),
    /** The helper tried on the service's first live process: ptrace allowed, the file runnable there. */
    probe: script(
      'lc_find',
      '[ -n "$pids" ] || { echo "no process found by: $lc_process" >&2; exit 3; }',
      'lc_open',
      'lc_helper',
      'set -- $pids',
      'e=$("$lc_cw" read $1 2>&1 >/dev/null); rc=$?; e=$(echo "$e" | head -n 1)',
      '[ $rc = 0 ] && exit 0',
      `[ $rc != 126 ] || { echo "the clock-warp helper cannot be run from $lc_cw (/var/tmp mounted noexec?): mount /var/tmp with exec" >&2; exit ${CLOCK_UNFIT}; }`,
      `echo "the clock-warp helper cannot ptrace the service's process $1 there ($e): let root ptrace it (CAP_SYS_PTRACE: a container host needs --cap-add SYS_PTRACE; kernel.yama.ptrace_scope 2 or lower)" >&2; exit ${CLOCK_UNFIT}`,
    ),
    /** Records, then warps, process `pid`; exit 3 when it ended (its record forgotten). */
    warp: (pid: Pid, change: Change) =>
      script(
        'lc_open',
        'lc_file "$lc_warped_file"',
        'lc_helper',
        `p=${scriptPid(pid)}; st=$(lc_began $p)`,
        `[ -n "$st" ] || { echo "process $p ended" >&2; exit ${CLOCK_ENDED}; }`,
        'echo "$p $st" >> "$lc_warped_file" || { echo "could not record the warp in $lc_warped_file: nothing warped" >&2; exit 4; }',
        `"$lc_cw" attach $p ${changeWords(change)}; rc=$?`,
        `[ $rc = 0 ] || { s=$(lc_state $p); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ] || { lc_forget $p; exit ${CLOCK_ENDED}; }; }`,
        'exit $rc',
      ),
    /** Changes the warp of a warped process, live. */
    set: (pid: Pid, change: Change) =>
      script('lc_open', 'lc_helper', `exec "$lc_cw" set ${scriptPid(pid)} ${changeWords(change)}`),
    /** The warp in place in a process. */
    read: (pid: Pid) => script('lc_open', 'lc_helper', `exec "$lc_cw" read ${scriptPid(pid)}`),
    /** The true clock back in a process, and its record forgotten; "ended" when it is gone. */
    restore: (pid: Pid) =>
      script(
        'lc_open',
        'lc_file "$lc_warped_file"',
        'lc_helper',
        `p=${scriptPid(pid)}; s=$(lc_state $p)`,
        'if [ -z "$s" ] || [ "$s" = Z ] || [ "$s" = X ]; then lc_forget $p; echo ended; exit 0; fi',
        '"$lc_cw" restore $p || exit $?',
        'lc_forget $p',
      ),
    /** The service's live pids and the live children of `pids`, not among them: those a warp may have reached since. */
    born: (pids: readonly Pid[]) => {
      const given = pids.map(scriptPid).join(' ');
      return script(
        'lc_find',
        `for p in $pids $(lc_kids ${given}); do case " ${given} " in *" $p "*) ;; *) printf '%s ' $p;; esac; done`,
      );
    },
    /** Whether a process lives (exit 0), for a born one that could not be read. */
    alive: (pid: Pid) => script(`s=$(lc_state ${scriptPid(pid)}); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]`),
  };
}

/** How many processes a heal's output says it gave their true clock back. */
export const clocksRestored = (output: string): number =>
  output.split('\n').filter((l) => /^clock restored: pid \d+$/.test(l.trim())).length;
