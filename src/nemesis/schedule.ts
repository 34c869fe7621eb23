/**
 * The fault schedule: wait a seeded interval, start a fault, let it last its duration,
 * stop it, and so on until the time is up. Every start and stop is recorded as nemesis
 * operations (invoke, then ok or info), so checkers and reports see the fault windows.
 * The same seed gives the same intervals and durations.
 */
import type { UnindexedOp } from '../history/recorder.js';
import { type Origin, sinceOrigin, sleep } from '../util/clock.js';
import type { Rng } from '../util/rng.js';
import type { Nemesis } from './nemesis.js';

export async function runSchedule(opts: {
  nemesis: Nemesis;
  rng: Rng;
  intervalS: number;
  origin: Origin;
  record: (op: UnindexedOp) => void;
  signal: AbortSignal;
}): Promise<void> {
  const { nemesis, rng, origin, record, signal } = opts;
  const emit = (type: UnindexedOp['type'], f: string, value?: unknown, error?: string) => {
    const op: UnindexedOp = { type, f, process: 'nemesis', time: sinceOrigin(origin) };
    if (value !== undefined) op.value = value;
    if (error !== undefined) op.error = error;
    record(op);
  };
  while (!signal.aborted) {
    await sleep(1000 * opts.intervalS * rng.uniform(0.5, 1.5), signal);
    if (signal.aborted) break;
    const start = `start-${nemesis.kind}`;
    emit('invoke', start);
    let started: Awaited<ReturnType<Nemesis['start']>>;
    try {
      started = await nemesis.start(rng);
    } catch (err) {
      emit('info', start, undefined, String(err));
      continue;
    }
    if (!started) {
      emit('fail', start, undefined, 'nothing to fault');
      continue;
    }
    emit('ok', start, started.value);
    // A fault runs its full length even past the time limit's signal: heal comes after.
    await sleep(started.durationMs);
    const stop = `stop-${nemesis.kind}`;
    emit('invoke', stop);
    try {
      emit('ok', stop, await nemesis.stop());
    } catch (err) {
      emit('info', stop, undefined, String(err));
    }
  }
}
