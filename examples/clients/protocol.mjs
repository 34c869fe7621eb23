// The lockchaos client protocol loop (docs/client-protocol.md), shared by the Node examples.
// An adapter has init(req) -> its name for the record, acquire(req) and release(req) ->
// an answer: ok(...), fail(why) or unknown(why). One request at a time, one answer a line.
import { createInterface } from 'node:readline';

export const ok = (fields = {}) => ({ type: 'ok', ...fields });
/** It certainly did not happen. */
export const fail = (error) => ({ type: 'fail', error: String(error?.message ?? error) });
/** It may have happened: recorded as info. */
export const unknown = (error) => ({ type: 'unknown', error: String(error?.message ?? error) });

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);

export async function serve(adapter) {
  for await (const line of createInterface({ input: process.stdin })) {
    const req = JSON.parse(line);
    if (req.type === 'init') send({ type: 'init_ok', protocol: 1, name: await adapter.init(req) });
    else send({ id: req.id, ...(await adapter[req.type](req)) });
  }
  // stdin ended: the run is over. Open connections would keep Node alive.
  process.exit(0);
}
