/**
 * An exploration: a baseline run that learns the points the clients reach, then every
 * fault at every point, likeliest first, over seeds, within a budget; a point's tries end
 * at its first counted violation, and that try is shrunk (shrunk.ts) within a few runs.
 * Each try is a real run (runAndReport, as `run` makes it).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CoverageRow } from '../../checkers/coverage.js';
import { runAndReport } from '../reported-run/reported-run.js';
import { runExitCode } from '../run-data/conditions.js';
import type { TestConfig } from '../run-data/config.js';
import { prepareRun } from '../run-data/prepare.js';
import type { RunHooks } from '../runner/run.js';
import { errorMessage, UserError } from '../util/errors.js';
import { type Budget, budgetAllows } from './budget.js';
import { type Candidate, candidatesFor, type LearnedPoint, NODE_FAULTS, nodeFaultsLast } from './candidates.js';
import { onlyTheLeaseArgument } from './lease-argument.js';
import { orderCandidates } from './order.js';
import { tryPlan } from './plan.js';
import { DEFAULT_SHRINK_RUNS, shrinkTry } from './shrunk.js';
import { explorationTable, type TableRow, type TryResult } from './table.js';

/** Each try's time limit, and the baseline's, when none is given (seconds). */
export const DEFAULT_RUN_TIME_S = 8;

export interface ExploreOptions {
  base: TestConfig;
  budget: Budget;
  runTimeS: number;
  /** The run command's flags for a replay line, without --nemesis and --seed. */
  replayBase: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
  buildImage?: boolean;
  /** Shrink runs per broken point (shrunk.ts); 0: none. */
  shrinkRuns?: number;
  /** End at the first configuration that broke the lock, the rest of the budget unspent (a known bug's nightly). */
  untilBroken?: boolean;
  /** Each try's own run lines (a campaign cell's log); none by default. */
  runLog?: (line: string) => void;
  /** A campaign's limit on workloads at once, taken by each try as a cell's run takes it (RunHooks). */
  workloadSlot?: RunHooks['workloadSlot'];
}

export interface Exploration {
  points: LearnedPoint[];
  baseline?: TryResult;
  tries: TryResult[];
  rows: TableRow[];
  dir: string;
  /** 1 a configuration broke the lock; 0 none did and all ran as configured (unknown ones too); else 3. */
  exitCode: number;
}

/** The points a coverage counted as reached (standard, announced, and requests on the wire). */
export function learnedPoints(coverage: readonly CoverageRow[]): LearnedPoint[] {
  const seen = new Map<string, number>();
  for (const row of coverage) {
    if (row.reached === undefined) continue;
    // A point no client reached: a fault aimed there never acts (its run is unknown).
    if (row.reached === 0) continue;
    seen.set(row.point, Math.max(seen.get(row.point) ?? 0, row.reached));
  }
  return [...seen].map(([point, reached]) => ({ point, reached }));
}

/**
 * The node faults the run's backend and nodes can take (NODE_FAULTS), asked of the run's
 * own resolution: a backend without nodes to fault (a module's that declares none), or a
 * target whose hosts cannot be stopped or restarted, refuses them, and they are not tried.
 */
async function nodeFaultsFitting(base: TestConfig): Promise<string[]> {
  const fit: string[] = [];
  for (const kind of NODE_FAULTS) {
    try {
      await prepareRun({ ...base, nemesis: `${kind}:one:at=in-hold` });
      fit.push(kind);
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
    }
  }
  return fit;
}

/** How often the lock was acquired in the baseline: its after-grant count. */
const acquiresOf = (points: readonly LearnedPoint[]) => points.find((p) => p.point === 'after-grant')?.reached ?? 0;

export async function explore(o: ExploreOptions): Promise<Exploration> {
  const log = o.log ?? (() => {});
  const t0 = Date.now();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const dir = join(o.base.storeDir, 'explore', stamp);
  const runs = join(dir, 'runs');
  mkdirSync(runs, { recursive: true });
  const one = async (c: Candidate | undefined, seed: number): Promise<TryResult & { coverage?: CoverageRow[] }> => {
    const spec = c?.spec ?? 'none';
    const config: TestConfig = {
      ...o.base,
      name: c ? c.spec.replace(/[^A-Za-z0-9-]+/g, '-') : 'baseline',
      nemesis: spec,
      seed,
      timeLimitS: o.runTimeS,
      stopOnViolation: true,
      storeDir: runs,
    };
    const base = { spec, point: c?.point ?? '', fault: c?.fault ?? '', seed };
    try {
      const r = await runAndReport(config, {
        progress: false,
        latest: false,
        buildImage: o.buildImage ?? true,
        signal: o.signal,
        // The baseline counts every request on the wire: its proxies opened without a fault.
        proxies: !c,
        ...(o.runLog ? { log: o.runLog } : {}),
        ...(o.workloadSlot ? { workloadSlot: o.workloadSlot } : {}),
      });
      const code = runExitCode(r.valid, r.conditions);
      const invalid = code === 1 && !(c && !config.fencing && onlyTheLeaseArgument(r.results, r.history));
      const verdict =
        code === 1 ? (invalid ? 'invalid' : 'lease') : code === 0 ? 'valid' : code === 2 ? 'unknown' : 'error';
      return {
        ...base,
        verdict,
        exitCode: code,
        dir: r.dir,
        ...(r.headline ? { headline: r.headline } : {}),
        coverage: r.coverage,
      };
    } catch (err) {
      return { ...base, verdict: 'error', exitCode: 3, headline: errorMessage(err).split('\n')[0] };
    }
  };
  log(`explore: baseline run, no fault, ${o.runTimeS} s, seed ${o.base.seed}`);
  const { coverage, ...baseline } = await one(undefined, o.base.seed);
  const points = learnedPoints(coverage ?? []);
  log(`explore: ${points.length} points learned: ${points.map((p) => `${p.point} ×${p.reached}`).join(', ')}`);
  const nodeFaults = await nodeFaultsFitting(o.base);
  if (nodeFaults.length < NODE_FAULTS.length) {
    log(
      `explore: no ${NODE_FAULTS.filter((k) => !nodeFaults.includes(k)).join(' or ')} here (the backend or its nodes cannot take it)`,
    );
  }
  const candidates = nodeFaultsLast(
    orderCandidates(candidatesFor(points, o.base.fencing, nodeFaults), points, acquiresOf(points)),
  );
  const tries: TryResult[] = [];
  const broken = new Set<string>();
  for (const t of tryPlan(candidates, o.base.seed, broken)) {
    if (o.signal?.aborted || !budgetAllows(o.budget, tries.length, Date.now() - t0)) break;
    if (o.untilBroken && broken.size > 0) break;
    const { coverage: _, ...r } = await one(t.candidate, t.seed);
    tries.push(r);
    log(
      `explore: try ${tries.length}: ${r.spec} seed ${r.seed}: ${r.verdict.toUpperCase()}${r.headline ? ` — ${r.headline}` : ''}`,
    );
    if (r.verdict === 'invalid') {
      broken.add(t.candidate.point);
      const maxRuns = o.shrinkRuns ?? DEFAULT_SHRINK_RUNS;
      if (maxRuns > 0 && r.dir && !o.signal?.aborted) {
        log(`explore: shrinking ${r.spec} seed ${r.seed}, at most ${maxRuns} runs`);
        r.shrunk = await shrinkTry(r.dir, maxRuns, { signal: o.signal, fencing: o.base.fencing });
        log(
          `explore: shrunk in ${r.shrunk.runs} runs: ${r.shrunk.error ?? `${r.shrunk.smaller ? 'smallest' : 'already minimal'}: ${r.shrunk.reproducer}`}`,
        );
      }
    }
  }
  const rows = explorationTable(candidates, tries, o.replayBase, o.untilBroken && broken.size > 0);
  const exitCode = tries.some((t) => t.verdict === 'invalid')
    ? 1
    : points.length === 0 || tries.length === 0
      ? 3
      : tries.some((t) => t.verdict === 'error')
        ? 3
        : 0;
  const result: Exploration = { points, baseline, tries, rows, dir, exitCode };
  writeFileSync(join(dir, 'explore.json'), `${JSON.stringify(result, null, 2)}\n`);
  return result;
}
