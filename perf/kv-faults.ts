/**
 * Ways to make one key of a kv history not linearizable, the way real bugs look: a get in
 * the key's middle that answers a value no order explains. The checker's bench (checker.ts)
 * and the thread-cost construction (beside-hard.ts) falsify their histories with them.
 */
import type { Op } from '../src/history/op.js';

/**
 * How a kv history's invalid key is made not linearizable: 'stale-read', a get in its
 * middle answers a value put before another put that completed before the get was invoked
 * (kv's pre-check finds it without a search); 'lost-append', a get in its middle answers its
 * value without the text of an append that completed before the get was invoked (only the
 * search finds it: the value still begins with a put it may follow).
 */
export type Fault = 'stale-read' | 'lost-append';

/** An ok put or append of a key, for falsifyGet: its invocation and completion (history positions). */
interface OkWrite {
  f: string;
  call: number;
  ret: number;
  value: unknown;
}

/**
 * Offers each ok get of `key` after the key's `after`-th operation, with its invocation and
 * the key's ok writes before it, to `falsify`, until it changes one: whether one was.
 */
function falsifyGet(
  h: Op[],
  key: string,
  after: number,
  falsify: (get: Op, call: number, writes: OkWrite[]) => boolean,
): boolean {
  const invoked = new Map<unknown, number>();
  const writes: OkWrite[] = [];
  let seen = 0;
  for (const op of h) {
    if (op.key !== key) continue;
    if (op.type === 'invoke') {
      invoked.set(op.process, op.index);
      seen++;
      continue;
    }
    const call = invoked.get(op.process) as number;
    if (op.type === 'ok' && op.f !== 'get') writes.push({ f: op.f, call, ret: op.index, value: op.value });
    if (op.type === 'ok' && op.f === 'get' && seen >= after && falsify(op, call, writes)) return true;
  }
  return false;
}

/** A get answers the value of a put that another put overwrote before the get was invoked. */
export function staleRead(h: Op[], key: string, after: number): boolean {
  return falsifyGet(h, key, after, (get, call, writes) => {
    const puts = writes.filter((w) => w.f === 'put');
    const overwritten = puts.find((p1) => puts.some((p2) => p2.call > p1.ret && p2.ret < call));
    if (overwritten) get.value = overwritten.value;
    return overwritten !== undefined;
  });
}

/**
 * A get whose value has, past its start, the text of an append that completed before the
 * get was invoked answers that value without the text.
 */
export function lostAppend(h: Op[], key: string, after: number): boolean {
  return falsifyGet(h, key, after, (get, call, writes) => {
    const value = get.value;
    if (typeof value !== 'string') return false;
    const lost = writes.findLast((w) => w.f === 'append' && w.ret < call && value.lastIndexOf(w.value as string) > 0);
    if (!lost) return false;
    const text = lost.value as string;
    const at = value.lastIndexOf(text);
    get.value = value.slice(0, at) + value.slice(at + text.length);
    return true;
  });
}
