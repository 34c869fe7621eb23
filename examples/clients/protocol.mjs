// The lockchaos client protocol loop (docs/client-protocol.md), shared by the Node examples.
// An adapter has init(req) -> its name for the record, acquire(req) and release(req) ->
// an answer: ok(...), fail(why) or unknown(why). One request at a time, one answer a line.
// init may throw a Decline (this program cannot drive that backend); point(name) tells the
// harness the program is at a named code point (protocol 2) and resolves when it may go on.
// extended(validityMs) and extendFailed(why) report the library's own extension of the
// lease (the checkers date the lease from the last one).
import { createInterface } from 'node:readline';

export const ok = (fields = {}) => ({ type: 'ok', ...fields });
/** It certainly did not happen. */
export const fail = (error) => ({ type: 'fail', error: String(error?.message ?? error) });
/** It may have happened: recorded as info. */
export const unknown = (error) => ({ type: 'unknown', error: String(error?.message ?? error) });
/** Thrown by init: answered init_fail with its message. */
export class Decline extends Error {}

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

/** The library extended the lease on its own: it lasts validityMs from now (left out: the run's TTL). */
export const extended = (validityMs) =>
  send(validityMs === undefined ? { type: 'extended' } : { type: 'extended', validity_ms: validityMs });
/** The library's own extension failed, in its words. */
export const extendFailed = (error) => send({ type: 'extend_failed', error: String(error?.message ?? error) });

/** Points waiting for their go, in the order announced. */
const waiting = [];
export function point(name) {
  return new Promise((resolve) => {
    waiting.push(resolve);
    send({ type: 'at', point: name });
  });
}

export async function serve(adapter) {
  // Requests are answered one at a time, in order; a go arrives while one is in progress.
  let queue = Promise.resolve();
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const req = JSON.parse(line);
    if (req.type === 'go') return waiting.shift()?.();
    queue = queue.then(async () => {
      if (req.type !== 'init') return send({ id: req.id, ...(await adapter[req.type](req)) });
      try {
        send({ type: 'init_ok', protocol: 2, name: await adapter.init(req) });
      } catch (err) {
        if (!(err instanceof Decline)) throw err;
        send({ type: 'init_fail', error: err.message });
      }
    });
  });
  await new Promise((resolve) => lines.once('close', resolve));
  await queue;
  // stdin ended: the run is over. Open connections would keep Node alive.
  process.exit(0);
}
