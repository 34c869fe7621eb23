/**
 * The fault schedule, as data. A run's faults are a list of ScheduledFaults: which kind,
 * when after the workload's start, for how long, and the seed of the fault's own draws
 * (which node, which holder, how far a clock jumps). A run either draws its schedule from
 * the seeded PRNG (wait a seeded interval, start a fault, let it last, stop it, and so on
 * until the time is up) or is given one (a schedule file, a replay, a shrink's candidate)
 * and applies it as it stands. Either way the faults applied are handed back, so the run
 * records its schedule in test.json, and every start and stop is recorded as nemesis
 * operations (invoke, then ok or info), so checkers and reports see the fault windows.
 *
 * Each fault draws from its own seed, not from the schedule's stream: dropping one fault
 * from a schedule (as shrinking does) leaves what the others do unchanged.
 */
import type { UnindexedOp } from '../history/recorder.js';
import { NS_PER_MS, type Origin, sinceOrigin, sleep, sleepAtLeast } from '../util/monotonic-clock.js';
import { Rng } from '../util/rng.js';
import type { FaultPlan, FaultStart, Nemesis } from './nemesis.js';

export interface ScheduledFault {
  /** The fault kind: one of the run's --nemesis kinds ("client-pause", "partition" ...). */
  kind: string;
  /** When it starts: milliseconds after the workload's start. */
  atMs: number;
  /** How long it lasts before it is stopped. */
  durationMs: number;
  /** The seed of the fault's own draws (which node, which holder, how far). */
  seed: number;
  /** What the fault did when it was recorded (its start's value): for the reader, not replayed. */
  did?: unknown;
}

/** A start's recorded value: what it did, and from when it was in effect where it says so (history time, ns). */
function startValue(started: FaultStart, origin: Origin): unknown {
  const { value, inEffectFrom } = started;
  if (inEffectFrom === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return { ...value, inEffectFrom: Number(inEffectFrom - origin) };
}

export async function runSchedule(opts: {
  nemesis: Nemesis;
  /** The schedule's stream: intervals and each fault's seed, when no schedule is given. */
  rng: Rng;
  intervalS: number;
  origin: Origin;
  record: (op: UnindexedOp) => void;
  signal: AbortSignal;
  /** This nemesis's faults to apply at their times, instead of drawing them. */
  given?: readonly ScheduledFault[];
  /** Each fault as it was applied (one that found nothing to fault, or failed to start, is not). */
  applied?: (fault: ScheduledFault) => void;
}): Promise<void> {
  const { nemesis, rng, origin, record, signal } = opts;
  const emit = (type: UnindexedOp['type'], f: string, value?: unknown, error?: string) => {
    const op: UnindexedOp = { type, f, process: 'nemesis', time: sinceOrigin(origin) };
    if (value !== undefined) op.value = value;
    if (error !== undefined) op.error = error;
    record(op);
    return op.time;
  };
  const nowMs = () => Math.round(sinceOrigin(origin) / NS_PER_MS);
  const given = opts.given ? [...opts.given].sort((a, b) => a.atMs - b.atMs) : undefined;
  for (let i = 0; !signal.aborted; i++) {
    let fault: Omit<ScheduledFault, 'durationMs'> & { durationMs?: number };
    if (given) {
      const next = given[i];
      if (!next) break;
      // Not a bare timer: it may wake up to a millisecond early against the clock the start is stamped on.
      await sleepAtLeast(next.atMs, origin, signal);
      fault = { kind: nemesis.kind, atMs: next.atMs, seed: next.seed, durationMs: next.durationMs };
    } else {
      await sleep(1000 * opts.intervalS * rng.uniform(0.5, 1.5), signal);
      fault = { kind: nemesis.kind, atMs: nowMs(), seed: rng.nextUint32() };
    }
    if (signal.aborted) break;
    const start = `start-${nemesis.kind}`;
    emit('invoke', start);
    const plan: FaultPlan | undefined = fault.durationMs === undefined ? undefined : { durationMs: fault.durationMs };
    let started: Awaited<ReturnType<Nemesis['start']>>;
    try {
      started = await nemesis.start(new Rng(fault.seed), plan);
    } catch (err) {
      // Not in the schedule: what failed to start has no length to give a replay.
      emit('info', start, undefined, String(err));
      continue;
    }
    if (!started) {
      emit('fail', start, undefined, 'nothing to fault');
      continue;
    }
    const did = startValue(started, origin);
    const inEffect = emit('ok', start, did);
    opts.applied?.({ ...fault, durationMs: started.durationMs, did });
    // A fault runs its full length even past the time limit's signal: heal comes after.
    // Its window is at least that long from the start's recorded completion.
    await sleepAtLeast(started.durationMs, origin + BigInt(inEffect));
    const stop = `stop-${nemesis.kind}`;
    emit('invoke', stop);
    try {
      emit('ok', stop, await nemesis.stop());
    } catch (err) {
      emit('info', stop, undefined, String(err));
    }
  }
}
