/**
 * Opens several connections as one: every one of them, or none. When one open fails, those
 * that did open are closed before its error is thrown, so that a client that could not
 * start leaves nothing open behind it (a caller that tries again would otherwise pile up
 * the half-made clients' connections until the process ends).
 */
export async function openAll<T>(
  opens: ReadonlyArray<() => Promise<T>>,
  close: (opened: T) => void | Promise<void>,
): Promise<T[]> {
  // Settled, not raced: an open still under way when another fails must be closed too.
  const outcomes = await Promise.allSettled(opens.map((open) => open()));
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  const opened = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  if (!failed) return opened;
  await Promise.allSettled(opened.map(async (o) => close(o)));
  throw failed.reason;
}
