/**
 * The command run again in a node started with the V8 flags it wants (flags V8 takes only
 * at start: NODE_OPTIONS refuses --single-threaded-gc, and setting it later crashes V8).
 * The child has this process's terminal, environment and arguments; this process waits,
 * passes on the signals that would stop it, and exits with the child's code.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Flags that open a debugger port: this node holds it, so the child would fail to bind it. */
const DEBUGGER = /^--(inspect|inspect-brk|inspect-wait)(=.*)?$/;
/** Its port, perhaps as a separate value: `--inspect-port 9230` (`--debug-port` is its alias). */
const DEBUGGER_PORT = /^--(inspect-port|debug-port)(=.*)?$/;

/**
 * This node's own flags as the child gets them: all but the debugger's (a developer's
 * `--inspect` stays with the node it was given to, the one that waits).
 */
export function childExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    if (DEBUGGER.test(arg)) continue;
    if (DEBUGGER_PORT.test(arg)) {
      if (!arg.includes('=')) i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}

/**
 * The exit code of the command run again with `flags`, or undefined to run it here: when
 * this node already has them, or the child could not be started.
 */
export function rerunWithNodeFlags(flags: readonly string[]): Promise<number | undefined> {
  const missing = flags.filter((f) => !process.execArgv.includes(f));
  if (missing.length === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...missing, ...childExecArgv(process.execArgv), ...process.argv.slice(1)], {
      stdio: 'inherit',
    });
    // A Ctrl-C reaches the child from the terminal too; a kill of this process does not.
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    for (const s of FORWARDED) process.on(s, forward);
    const done = (code: number | undefined) => {
      for (const s of FORWARDED) process.off(s, forward);
      resolve(code);
    };
    child.on('error', () => done(undefined));
    child.on('exit', (code, signal) => done(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}
