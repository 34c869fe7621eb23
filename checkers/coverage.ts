/**
 * Coverage of the code points: for each point a run's clients could reach (the standard
 * ones, a library's own, the requests they sent on the wire) and each fault aimed at it,
 * how often the clients reached it, how often the fault hit there, and how many hits a
 * counted violation followed. A point a fault aimed at that no client reached is listed
 * as not exercised: a valid verdict then says nothing about that point.
 *
 * A hit is a fault start recorded with the point as its `at` (a fault kind declares the
 * point a spec of it aims at: src/nemesis/aimed-faults.ts); a violation follows it when
 * one of the operations the violation marks lies between the hit and two TTLs after the
 * fault ended (the stale holder goes on, the held request lands, the next holder acquires).
 */
import type { Op } from '../src/history/op.js';
import { ALREADY_HELD } from './fault-windows.js';
import type { CheckResult } from './result.js';
import { violationsOf } from './violations.js';

/** The points every run lists, reached or not (workloads/workload.ts STANDARD_POINTS). */
const LISTED = ['after-grant', 'in-hold', 'before-release', 'in-extend'];

export interface CoverageRow {
  point: string;
  /** The fault kind aimed at it (with its mode, e.g. `wire:hold`); undefined: none was. */
  fault?: string;
  /** How often clients reached it; undefined when the run could not count (a wire point without proxies). */
  reached?: number;
  hits: number;
  /**
   * Hits let go at once, another client already holding the lock as the client was caught
   * (a stop that carried nothing past a lease): counted in `hits`, and said apart.
   */
  brief?: number;
  /** How long its hits kept the client they caught, shortest and longest (their stops' `heldMs`). */
  held?: { shortestMs: number; longestMs: number };
  /** Hits after which a counted violation followed. */
  followed: number;
  /** False: the fault aims at a holder, caught here; a run where it never hit is not unknown for it. */
  counts?: false;
}

/** A fault aimed at a point, from the run's --nemesis spec (each kind declares where: src/nemesis/aimed-faults.ts). */
export interface AimedFault {
  kind: string;
  point: string;
  mode?: string;
  /** False: aimed at a holder, caught at the point where its hold begins (not at the point for itself). */
  counts?: false;
}

export function coverage(
  history: readonly Op[],
  results: readonly CheckResult[],
  reached: Readonly<Record<string, number>>,
  aimed: readonly AimedFault[],
  ttlMs: number,
): CoverageRow[] {
  const timeOf = new Map<number, number>();
  for (const op of history) timeOf.set(op.index, op.time);
  const marked: number[] = [];
  for (const r of results) {
    if (r.counts === false || r.valid !== false) continue;
    for (const v of violationsOf(r)) {
      for (const m of v.marks) {
        const t = timeOf.get(m.index);
        if (t !== undefined) marked.push(t);
      }
    }
  }
  // Each hit's window: from the fault's start to two TTLs after its stop.
  const hits = new Map<string, { from: number; to: number; brief?: true; heldMs?: number }[]>();
  const open = new Map<string, { point: string; from: number }>();
  for (const op of history) {
    if (op.process !== 'nemesis' || op.type !== 'ok') continue;
    const kind = op.f.replace(/^(start|stop)-/, '');
    if (op.f.startsWith('start-')) {
      const at = (op.value as { at?: unknown } | undefined)?.at;
      if (typeof at === 'string') open.set(kind, { point: at, from: op.time });
    } else if (op.f.startsWith('stop-')) {
      const started = open.get(kind);
      if (!started) continue;
      open.delete(kind);
      const key = `${kind}\u0000${started.point}`;
      const stopped = op.value as { until?: unknown; heldMs?: unknown } | undefined;
      const heldMs = typeof stopped?.heldMs === 'number' && stopped.heldMs >= 0 ? stopped.heldMs : undefined;
      const hit = { from: started.from, to: op.time + 2 * ttlMs * 1e6, ...(heldMs !== undefined ? { heldMs } : {}) };
      const brief = stopped?.until === ALREADY_HELD;
      hits.set(key, [...(hits.get(key) ?? []), brief ? { ...hit, brief: true as const } : hit]);
    }
  }
  const end = history.at(-1)?.time ?? 0;
  for (const [kind, started] of open) {
    const key = `${kind}\u0000${started.point}`;
    hits.set(key, [...(hits.get(key) ?? []), { from: started.from, to: end }]);
  }

  const rows: CoverageRow[] = [];
  const seen = new Set<string>();
  for (const a of aimed) {
    const windows = hits.get(`${a.kind}\u0000${a.point}`) ?? [];
    const followed = windows.filter((w) => marked.some((t) => t >= w.from && t <= w.to)).length;
    const held = windows.flatMap((w) => (w.heldMs === undefined ? [] : [w.heldMs]));
    const row: CoverageRow = {
      point: a.point,
      fault: a.mode ? `${a.kind}:${a.mode}` : a.kind,
      hits: windows.length,
      ...(windows.some((w) => w.brief) ? { brief: windows.filter((w) => w.brief).length } : {}),
      ...(held.length > 0 ? { held: { shortestMs: Math.min(...held), longestMs: Math.max(...held) } } : {}),
      followed,
      ...(a.counts === false ? { counts: false as const } : {}),
    };
    const n = reached[a.point];
    if (n !== undefined) row.reached = n;
    else if (!a.point.startsWith('wire:') || Object.keys(reached).some((p) => p.startsWith('wire:'))) row.reached = 0;
    rows.push(row);
    seen.add(a.point);
  }
  const others = [...new Set([...LISTED, ...Object.keys(reached)])].filter((p) => !seen.has(p));
  for (const point of others) rows.push({ point, reached: reached[point] ?? 0, hits: 0, followed: 0 });
  return rows;
}

/** One line a row: the point, how often reached, the fault, its hits and what followed. */
export function coverageLines(rows: readonly CoverageRow[]): string[] {
  if (rows.length === 0) return [];
  // A reduce, not Math.max(...rows): a spread of 200,000 rows overflows the stack.
  const width = rows.reduce((w, r) => Math.max(w, r.point.length), 0);
  return rows.map((r) => {
    const reach = r.reached === undefined ? 'reached ?' : r.reached === 0 ? 'not exercised' : `reached ${r.reached}×`;
    const fault =
      r.fault === undefined
        ? ''
        : `  ${r.fault}: ${r.hits === 0 ? 'never hit' : `hit ${r.hits}×${holdLengthWords(r)}${briefWords(r)}, a violation followed ${r.followed} of ${r.hits}`}`;
    return `  ${r.point.padEnd(width)}  ${reach}${fault}`;
  });
}

/** How long a row's hits held their clients, in words: " holding its client 0.05–0.93 s". */
export function holdLengthWords(r: CoverageRow): string {
  if (!r.held) return '';
  const s = (ms: number) => (ms / 1000).toFixed(2);
  const { shortestMs: a, longestMs: b } = r.held;
  return ` holding its client ${s(a) === s(b) ? s(a) : `${s(a)}–${s(b)}`} s`;
}

/** The brief hits of a row, in words: those that held nobody past a lease. */
const briefWords = (r: CoverageRow) =>
  r.brief ? ` (${r.brief === r.hits ? 'each' : `${r.brief} of them`} let go at once: ${ALREADY_HELD})` : '';

/**
 * A fault aimed at a point it never hit: the run did not test what it was asked to, and
 * a valid verdict says nothing about that point. With the requests the clients did send,
 * for a point on the wire (redis-py sends INCR as INCRBY).
 */
export function coverageWarnings(rows: readonly CoverageRow[]): string[] {
  const sent = rows.filter((r) => r.point.startsWith('wire:') && (r.reached ?? 0) > 0).map((r) => r.point);
  return rows
    .filter((r) => r.fault !== undefined && r.hits === 0 && r.counts !== false)
    .map((r) => {
      const others = r.point.startsWith('wire:') && sent.length > 0 ? ` (the clients sent ${sent.join(', ')})` : '';
      const reach = (r.reached ?? 0) === 0 ? 'no client reached it' : 'the fault never caught a client there';
      return `${r.fault} aimed at ${r.point}, but ${reach}${others}: the verdict says nothing about that point`;
    });
}

/**
 * Client programs that announced more distinct code points than one may (`cap`, in
 * src/backends/client-protocol.ts): a result that does not count (the verdict stays), so
 * that the report, the summary and a campaign's cell say the coverage left names out.
 */
export function cappedPointsResult(clients: readonly number[], cap: number): CheckResult[] {
  if (clients.length === 0) return [];
  const which = [...new Set(clients)].sort((a, b) => a - b).map((c) => `c${c}`);
  return [
    {
      checker: 'code-points-capped',
      counts: false,
      valid: 'unknown',
      summary: `the client program of ${which.join(', ')} announced more than ${cap} distinct code points: only the first ${cap} (and any a fault aims at) are counted, the rest answered at once; give each point one name`,
    },
  ];
}

/**
 * The code points as a counted result, only when a fault aimed at one never hit: the run
 * then gave no evidence at that point, so its verdict is at best unknown.
 */
export function codePointsResult(rows: readonly CoverageRow[]): CheckResult[] {
  const warnings = coverageWarnings(rows);
  if (warnings.length === 0) return [];
  return [{ checker: 'code-points', counts: true, valid: 'unknown', summary: warnings.join('; ') }];
}
