/**
 * The nemesis's fault windows: when each fault it recorded was in effect. The checkers
 * that say what was going on at a time read them (mutual-exclusion, perf), and so do the
 * report's fault bands and the sweep's pauses. (Client operations are paired in
 * src/history/pairs.ts, pairLeniently.)
 */
import type { Op } from '../src/history/op.js';

/**
 * Why a fault that caught a client at a point let it go at once (its stop record's `until`):
 * another client held the lock as it was caught, so the fault carried nothing past a lease
 * (coverage.ts counts such a hit apart).
 */
export const ALREADY_HELD = 'another client already held the lock';

/** When a start's fault took effect: its `inEffectFrom` where that lies within the start's invoke and ok, else its ok. */
function inEffectFrom(ok: Op, invokedAt: number | undefined): number {
  const from = (ok.value as { inEffectFrom?: unknown } | undefined)?.inEffectFrom;
  if (typeof from !== 'number' || invokedAt === undefined) return ok.time;
  return from >= invokedAt && from <= ok.time ? from : ok.time;
}

/** A start's value without its `inEffectFrom`: the window's start says it, in words a reader is given. */
function withoutEffectTime(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || !('inEffectFrom' in value)) return value;
  const { inEffectFrom: _, ...rest } = value as Record<string, unknown>;
  return rest;
}

/** A fault's start and end as the nemesis recorded them (end undefined: never healed). */
export interface FaultWindow {
  f: string;
  value: unknown;
  start: number;
  end?: number;
  /** What its stop recorded (a hit's `heldMs` and `until`), when it was healed. */
  stopValue?: unknown;
}

/**
 * The nemesis records `start-<fault>` then `stop-<fault>` (each an invoke + completion);
 * a window runs from the start's `ok` (the fault is in effect) to the stop's completion.
 * A start that went on after it first changed anything says from when (`inEffectFrom`, a
 * history time): its window opens there, if that lies within the start's own invoke and
 * ok. A start that failed opened no window.
 */
export function faultWindows(history: readonly Op[]): FaultWindow[] {
  const windows: FaultWindow[] = [];
  const open = new Map<string, FaultWindow>();
  const invoked = new Map<string, number>();
  for (const op of history) {
    if (op.process !== 'nemesis') continue;
    const m = /^(start|stop)-(.+)$/.exec(op.f);
    if (!m) continue;
    const [, phase, fault] = m as unknown as [string, string, string];
    const id = `${fault}:${JSON.stringify(op.key ?? '')}`;
    if (phase === 'start' && op.type === 'invoke') invoked.set(id, op.time);
    if (phase === 'start' && op.type === 'ok') {
      const w: FaultWindow = { f: fault, value: withoutEffectTime(op.value), start: inEffectFrom(op, invoked.get(id)) };
      windows.push(w);
      open.set(id, w);
    } else if (phase === 'stop' && op.type !== 'invoke') {
      const w = open.get(id);
      if (w) {
        w.end = op.time;
        if (op.value !== undefined) w.stopValue = op.value;
        open.delete(id);
      }
    }
  }
  return windows;
}
