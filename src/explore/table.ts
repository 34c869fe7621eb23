/** The exploration's end: a row per point × fault, its tries, violations, finding and replay. */
import type { Candidate } from './candidates.js';
import type { ShrunkTry } from './shrunk.js';

export interface TryResult {
  spec: string;
  point: string;
  fault: string;
  seed: number;
  /** `lease`: invalid only by the lease argument (lease-argument.ts), not counted against the library. */
  verdict: 'valid' | 'invalid' | 'lease' | 'unknown' | 'error';
  exitCode: number;
  dir?: string;
  headline?: string;
  /** A point's first counted violation, shrunk (shrunk.ts). */
  shrunk?: ShrunkTry;
}

export interface TableRow {
  point: string;
  fault: string;
  spec: string;
  tries: number;
  violations: number;
  finding: string;
  replay: string;
  /** The violating try shrunk: how many runs, the smallest reproducer and its replay command (or why none). */
  shrunk?: ShrunkTry;
}

/** The rows in the candidates' order; `replayBase` is the run command's flags, without fault and seed. */
export function explorationTable(
  candidates: readonly Candidate[],
  results: readonly TryResult[],
  replayBase: string,
  endedAtBreak = false,
): TableRow[] {
  return candidates
    .map((c) => {
      const mine = results.filter((r) => r.spec === c.spec);
      const broke = mine.find((r) => r.verdict === 'invalid');
      const notRun = mine.filter((r) => r.verdict === 'error').length;
      const lease = mine.filter((r) => r.verdict === 'lease').length;
      const asides = [
        ...(notRun > 0 ? [`${notRun} did not run as configured`] : []),
        ...(lease > 0
          ? [
              `${lease} only a holder outliving its lease (stopped by the fault, or its lease run out by the next grant), as any lease lock without fencing`,
            ]
          : []),
      ];
      const finding = broke
        ? (broke.headline ?? 'INVALID')
        : mine.length === 0
          ? endedAtBreak
            ? 'not tried (ended at the first break, --until-broken)'
            : 'not tried (budget)'
          : `no violation${asides.length > 0 ? ` (${asides.join('; ')})` : ''}`;
      const seed = (broke ?? mine[0])?.seed;
      return {
        point: c.point,
        fault: c.fault,
        spec: c.spec,
        tries: mine.length,
        violations: mine.filter((r) => r.verdict === 'invalid').length,
        finding,
        replay:
          seed === undefined
            ? ''
            : `lockchaos run ${replayBase} --nemesis ${c.spec} --seed ${seed}`.replace(/ +/g, ' '),
        ...(broke?.shrunk ? { shrunk: broke.shrunk } : {}),
      };
    })
    .sort((a, b) => b.violations - a.violations);
}

/** The table as text for stdout: broken rows first. */
export function formatTable(rows: readonly TableRow[]): string {
  const head = ['point', 'fault', 'tries', 'violations', 'finding'];
  const cells = rows.map((r) => [r.point, r.fault, String(r.tries), String(r.violations), r.finding]);
  const width = head.map((h, i) =>
    Math.max(h.length, ...cells.map((c) => ((c[i] as string).length > 60 ? 0 : (c[i] as string).length))),
  );
  const line = (c: string[]) => c.map((v, i) => (i < c.length - 1 ? v.padEnd(width[i] as number) : v)).join('  ');
  const replays = rows
    .filter((r) => r.violations > 0)
    .flatMap((r) => [`  ${r.spec}: ${r.replay}`, ...(r.shrunk ? [`    ${shrunkLine(r.shrunk)}`] : [])]);
  return [line(head), ...cells.map(line), ...(replays.length ? ['', 'Replay:', ...replays] : [])].join('\n');
}

/** A row's shrink in one line: the smallest reproducer and its replay, or why there is none. */
export function shrunkLine(s: ShrunkTry): string {
  if (s.error !== undefined) return `not shrunk: ${s.error}`;
  const what = s.smaller
    ? `shrunk in ${s.runs} runs to ${s.reproducer}`
    : `already minimal after ${s.runs} shrink runs`;
  return `${what}: ${s.replay}`;
}
