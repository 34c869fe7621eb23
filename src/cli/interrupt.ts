/**
 * Ctrl-C (or SIGTERM) for commands that must heal and tear down before they exit (run,
 * shrink, and those that run many runs: campaign, sweep, bench): the first aborts the
 * work's signal (runs in progress heal, tear down and are marked interrupted; no more
 * start); a second leaves at once (the next run's cleanup removes what is left).
 */
export const EXIT_INTERRUPTED = 130;

/** Aborts the returned signal on the first Ctrl-C (saying `message`); call dispose when done. */
export function onInterrupt(message: string): { signal: AbortSignal; dispose: () => void } {
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT_INTERRUPTED);
    console.error(`\n${signal}: ${message} (again to quit at once)`);
    abort.abort(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: abort.signal,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** Runs a campaign-like body under onInterrupt. */
export async function whileInterruptible<T>(what: string, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const interrupt = onInterrupt(`stopping the ${what}: runs in progress heal and tear down`);
  try {
    return await body(interrupt.signal);
  } finally {
    interrupt.dispose();
  }
}
