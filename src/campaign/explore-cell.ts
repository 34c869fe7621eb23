/**
 * A campaign's cell that explores (Cell.explore): lockchaos explore on the cell's
 * configuration, its tries under the cell's folder, each taking a workload slot as a
 * cell's run does. Its verdict is the exploration's: invalid when a configuration broke the
 * lock, valid when none did and every try ran as configured, an error otherwise; judged
 * against the cell's expectation as any cell's is.
 */
import { join } from 'node:path';
import type { CellExploration } from '../campaign-data/cell.js';
import type { CellResult } from '../campaign-data/summary-record.js';
import { type Exploration, explore } from '../explore/explore.js';
import { shrunkLine } from '../explore/table.js';
import { shellWord } from '../report/rerun-commands.js';
import type { TestConfig } from '../run-data/config.js';
import { flagWords } from '../run-data/parameters.js';
import { runFile } from '../run-data/run-folder.js';
import type { RunHooks } from '../runner/run.js';
import { errorMessage } from '../util/errors.js';
import { plural } from '../util/plural.js';
import type { Cell } from './matrix.js';

/** What the replay lines leave out: the exploration chooses the fault, the seed and the time; the cell names the run. */
const NOT_REPLAYED = new Set([
  'nemesis',
  'seed',
  'timeLimitS',
  'name',
  'storeDir',
  'scenario',
  'schedule',
  'stopOnViolation',
]);

/** The run command's flags for the replay lines, as `lockchaos explore` gives them. */
export const replayFlags = (config: TestConfig, runTimeS: number): string =>
  [...flagWords(config, NOT_REPLAYED), '--time-limit', String(runTimeS)].map(shellWord).join(' ');

/** The cell's outcome from an exploration: its verdict, whether it met the expectation, in one line. */
export function explorationOutcome(
  cell: Pick<Cell, 'expect'>,
  x: Pick<Exploration, 'exitCode' | 'rows' | 'tries' | 'points' | 'baseline'>,
  aborted: boolean,
): Pick<CellResult, 'actual' | 'met' | 'message' | 'headline'> {
  if (aborted)
    return { actual: 'aborted', met: false, message: 'interrupted before the exploration finished: no verdict' };
  const tried = `${plural(x.tries.length, 'try', 'tries')} at ${plural(x.points.length, 'point')}`;
  const broke = x.rows.find((r) => r.violations > 0);
  if (x.exitCode === 1 && broke) {
    const what = `${broke.spec} broke the lock: ${broke.finding}`;
    const met = cell.expect === 'invalid' || cell.expect === 'any';
    return {
      actual: 'invalid',
      met,
      message: met ? `invalid as expected: ${what}` : `expected valid, got INVALID: ${what} (${tried})`,
      headline: broke.finding,
    };
  }
  if (x.exitCode === 0) {
    const none = `no configuration broke the lock in ${tried}`;
    const met = cell.expect === 'valid' || cell.expect === 'any';
    return {
      actual: 'valid',
      met,
      message: met
        ? `valid as expected: ${none}`
        : `expected invalid, got valid: ${none}: the known-unsafe library was not caught`,
      headline: `No configuration broke the lock in ${tried}.`,
    };
  }
  const failed = x.tries.find((t) => t.verdict === 'error');
  const why =
    x.points.length === 0
      ? `'s baseline learned no point to aim at (${x.baseline?.verdict}${x.baseline?.headline ? `: ${x.baseline.headline}` : ''})`
      : failed
        ? `: a try did not run as configured (${failed.spec} seed ${failed.seed}: ${failed.headline ?? 'error'})`
        : ': nothing was tried';
  return { actual: 'error', met: false, message: `the exploration${why}` };
}

/** The exploration's record for the summary: its file, its tries, and each broken point's replays. */
function explorationRecord(x: Exploration): NonNullable<CellResult['exploration']> {
  return {
    file: join(x.dir, 'explore.json'),
    tries: x.tries.length,
    points: x.points.length,
    broken: x.rows
      .filter((r) => r.violations > 0)
      .map((r) => ({
        spec: r.spec,
        finding: r.finding,
        replay: r.replay,
        ...(r.shrunk ? { shrunk: shrunkLine(r.shrunk) } : {}),
      })),
  };
}

export interface ExploreCellContext {
  runsDir: string;
  signal: AbortSignal;
  workloadSlot: RunHooks['workloadSlot'];
  /** The cell's log: the exploration's lines and each try's. */
  runLog: (line: string) => void;
}

/** Runs the exploring cell; its result, an error one when the exploration could not run. */
export async function exploreCell(
  ctx: ExploreCellContext,
  cell: Cell & { explore: CellExploration },
  config: TestConfig,
  slug: string,
): Promise<CellResult> {
  const started = Date.now();
  const durationS = () => (Date.now() - started) / 1000;
  const { budget, runTimeS, shrinkRuns, untilBroken } = cell.explore;
  try {
    const x = await explore({
      base: { ...config, name: slug, storeDir: join(ctx.runsDir, slug) },
      budget,
      runTimeS,
      shrinkRuns,
      ...(untilBroken ? { untilBroken } : {}),
      replayBase: replayFlags(config, runTimeS),
      log: ctx.runLog,
      runLog: ctx.runLog,
      signal: ctx.signal,
      buildImage: false,
      workloadSlot: ctx.workloadSlot,
    });
    const outcome = explorationOutcome(cell, x, ctx.signal.aborted);
    // The run a reader opens first: the first that broke the lock, else the baseline.
    const broke = x.rows.find((r) => r.violations > 0);
    const dir = x.tries.find((t) => t.spec === broke?.spec && t.verdict === 'invalid')?.dir ?? x.baseline?.dir;
    return {
      cell,
      ...outcome,
      durationS: durationS(),
      ...(dir ? { dir, report: runFile(dir, 'report') } : {}),
      exploration: explorationRecord(x),
    };
  } catch (err) {
    const message = errorMessage(err).split('\n').filter(Boolean).join(' / ');
    ctx.runLog(`error: ${message}`);
    return {
      cell,
      actual: ctx.signal.aborted ? 'aborted' : 'error',
      met: false,
      message: `the exploration failed: ${message}`,
      durationS: durationS(),
    };
  }
}
