/**
 * Ctrl-C (or SIGTERM) for commands that run many runs (campaign, sweep, bench): the first
 * aborts the runs in progress (they heal, tear down and are marked interrupted) and starts
 * no more; a second leaves at once (the next run's cleanup removes what is left).
 */
export const EXIT_INTERRUPTED = 130;

export async function whileInterruptible<T>(what: string, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts += 1;
    if (interrupts > 1) process.exit(EXIT_INTERRUPTED);
    console.error(`\n${signal}: stopping the ${what}: runs in progress heal and tear down (again to quit at once)`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    return await body(abort.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
