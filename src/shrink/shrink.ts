/**
 * `lockchaos shrink RUN_DIR`: from an invalid run, the smallest fault schedule that still
 * breaks the lock, found by replaying candidates (search.ts) as real runs under
 * --stop-on-violation. Writes RUN_DIR/shrink/: every candidate tried (candidates.jsonl),
 * the minimal schedule (minimal-schedule.json, for `run --schedule`), the minimal run's
 * own folder with its report (minimal/), shrink.json and shrink.html.
 */
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type CheckResult, type Validity, verdictName, verdictWord } from '../../checkers/result.js';
import type { Op } from '../history/op.js';
import { runAndReport } from '../reported-run/reported-run.js';
import type { TestConfig } from '../run-data/config.js';
import { parseTestJson, readHistoryPrefix, readRunFile, rerunConfig, runFile } from '../run-data/run-folder.js';
import { scheduleFileOf } from '../run-data/schedule-file.js';
import { errorMessage, UserError } from '../util/errors.js';
import { cliCommand } from '../util/paths.js';
import { plural } from '../util/plural.js';
import { Rng } from '../util/rng.js';
import { stamped } from '../version.js';
import { shrinkHtml } from './html.js';
import type { FailingRun, ShrinkResult } from './result.js';
import { type Candidate, isSmaller, type SearchResult, searchSmallest, type Trial, type Tried } from './search.js';

export interface ShrinkOptions {
  trials?: number;
  minHits?: number;
  maxRuns?: number;
  /** Seconds the whole search may take. */
  timeLimitS?: number;
  signal?: AbortSignal;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * Whether an INVALID trial counts as still broken (all do by default). An unfenced
   * exploration counts none that only the lease argument made invalid (explore/lease-argument.ts).
   */
  counts?: (run: { results: readonly CheckResult[]; history: readonly Op[] }) => boolean;
}

export const SHRINK_DEFAULTS = { trials: 3, minHits: 2, maxRuns: 60, timeLimitS: 3600 };

export type { FailingRun, ShrinkResult };

/** Reads a run folder for shrinking; anything else is one UserError line naming the fix. */
export function loadFailingRun(dir: string): FailingRun {
  const { file, text } = readRunFile(dir);
  const config = rerunConfig(parseTestJson(text, file));
  const resultsPath = runFile(dir, 'results');
  if (!existsSync(resultsPath)) {
    throw new UserError(
      `'${dir}' has no verdict (no results.json): the run was cut short; run it again (lockchaos run --replay ${dir}) and shrink that`,
    );
  }
  let stored: { valid?: unknown; results?: { checker: string; valid: unknown; counts?: boolean; summary: string }[] };
  try {
    stored = JSON.parse(readFileSync(resultsPath, 'utf8'));
  } catch (err) {
    throw new UserError(
      `'${resultsPath}' is not JSON (${errorMessage(err).split('\n')[0]}): run it again and shrink that`,
    );
  }
  if (stored.valid !== false) {
    const word = verdictName(stored.valid === true ? true : 'unknown');
    throw new UserError(
      `'${dir}' is ${word}: shrink looks for the smallest run that still fails, so give it an invalid run`,
    );
  }
  if (!config.schedule) {
    throw new UserError(
      `'${dir}' recorded no fault schedule (an older run): run it again (lockchaos run --replay ${dir}) and shrink that`,
    );
  }
  const counted = (stored.results ?? []).find((r) => r.valid === false && r.counts !== false);
  const { history } = readHistoryPrefix(runFile(dir, 'history'));
  const operations = history.filter((op) => op.type !== 'invoke' && op.process !== 'nemesis').length;
  return {
    dir,
    config: { ...config, schedule: config.schedule },
    violation: counted ? `${counted.checker}: ${counted.summary}` : 'invalid',
    operations,
  };
}

/** A candidate in words: "2 faults (client-pause at 1.0 s for 1.1 s, ...), 5 s, 2 clients". */
export function describeCandidate(c: Candidate): string {
  const faults = c.faults.map(
    (f) => `${f.kind} at ${(f.atMs / 1000).toFixed(1)} s for ${(f.durationMs / 1000).toFixed(2)} s`,
  );
  return `${plural(c.faults.length, 'fault')}${faults.length ? ` (${faults.join(', ')})` : ''}, time limit ${c.timeLimitS} s, ${plural(c.concurrency, 'client')}`;
}

/** The options with their defaults, each checked: a bad one is one UserError line. */
function shrinkOptions(options: ShrinkOptions): typeof SHRINK_DEFAULTS {
  const given = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const o = { ...SHRINK_DEFAULTS, ...given } as typeof SHRINK_DEFAULTS;
  if (!Number.isInteger(o.trials) || o.trials < 1)
    throw new UserError(`--trials must be a whole number >= 1, got '${o.trials}'`);
  if (!Number.isInteger(o.minHits) || o.minHits < 1 || o.minHits > o.trials) {
    throw new UserError(`--min-hits must be a whole number from 1 to --trials (${o.trials}), got '${o.minHits}'`);
  }
  if (!Number.isInteger(o.maxRuns) || o.maxRuns < 1)
    throw new UserError(`--max-runs must be a whole number >= 1, got '${o.maxRuns}'`);
  if (!(o.timeLimitS > 0)) throw new UserError(`--time-limit must be a number of seconds > 0, got '${o.timeLimitS}'`);
  return o;
}

/** A trial's outcome: still broken only when INVALID and counted (ShrinkOptions.counts). */
export function trialOutcome(valid: Validity, counted: boolean): { invalid: boolean; verdict: string } {
  if (valid === false && !counted) return { invalid: false, verdict: 'INVALID, not counted (only the lease argument)' };
  return { invalid: valid === false, verdict: verdictWord(valid) };
}

/**
 * Runs a candidate as one trial under out/runs/ (run-001, run-002, ...), each with a seed
 * of its own drawn from the original's, stopping at its first counted violation.
 */
function trialRunner(
  cfg: TestConfig,
  out: string,
  signal?: AbortSignal,
  counts: NonNullable<ShrinkOptions['counts']> = () => true,
): (c: Candidate) => Promise<Trial> {
  const seeds = new Rng(cfg.seed).fork('shrink');
  let runNo = 0;
  return async (c) => {
    runNo++;
    const seed = seeds.nextUint32();
    const name = `run-${String(runNo).padStart(3, '0')}`;
    const config: TestConfig = {
      ...cfg,
      name,
      schedule: c.faults,
      timeLimitS: c.timeLimitS,
      concurrency: c.concurrency,
      seed,
      stopOnViolation: true,
      storeDir: join(out, 'runs'),
    };
    const logFile = join(out, 'runs', `${name}.log`);
    try {
      const r = await runAndReport(config, {
        log: (line) => appendFileSync(logFile, `${line}\n`),
        progress: false,
        latest: false,
        buildImage: false,
        signal,
      });
      return { ...trialOutcome(r.valid, r.valid === false && counts(r)), dir: r.dir, seed };
    } catch (err) {
      return { invalid: false, verdict: `error: ${errorMessage(err).split('\n')[0]}`, seed };
    }
  };
}

/**
 * Shrinks a failing run: the smallest schedule, time limit and client count that still
 * fails in at least minHits of trials runs, searched within the budget; written under
 * <run>/shrink/ (candidates, the minimal schedule and run, shrink.json and its page).
 */
export async function shrinkRun(dir: string, options: ShrinkOptions = {}): Promise<ShrinkResult> {
  const original = loadFailingRun(dir);
  const o = shrinkOptions(options);
  const log = options.log ?? (() => {});
  const t0 = Date.now();
  const out = join(dir, 'shrink');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'runs'), { recursive: true });
  const candidatesFile = join(out, 'candidates.jsonl');
  writeFileSync(candidatesFile, '');

  const cfg = original.config;
  const start: Candidate = { faults: cfg.schedule, timeLimitS: cfg.timeLimitS, concurrency: cfg.concurrency };
  log(`shrink: from ${describeCandidate(start)}: ${original.violation.split(';')[0]}`);
  const onTried = (t: Tried, best: Candidate, runs: number) => {
    appendFileSync(candidatesFile, `${JSON.stringify(t)}\n`);
    const hits = t.trials.filter((x) => x.invalid).length;
    const spent = Math.round((Date.now() - t0) / 1000);
    log(
      `shrink: [${runs} runs, ${spent} s] ${t.step}: ${describeCandidate(t.candidate)}: invalid ${hits} of ${t.trials.length} → ${t.kept ? 'kept' : 'not kept'}; best: ${describeCandidate(best)}`,
    );
  };
  const result = await searchSmallest(start, trialRunner(cfg, out, options.signal, options.counts), {
    trials: o.trials,
    minHits: o.minHits,
    maxRuns: o.maxRuns,
    deadline: t0 + o.timeLimitS * 1000,
    // Clients connected and contending: the lock has had holders for a while.
    leadMs: 2000,
    // After the last fault: time for a stale holder to write, and another to take the lock.
    tailMs: 2 * cfg.ttlMs + cfg.holdMs + 1000,
    minConcurrency: 2,
    minDurationMs: 100,
    signal: options.signal,
    onTried,
  });
  return writeShrunk(dir, out, original, start, result, Math.round((Date.now() - t0) / 100) / 10);
}

/** The search's outcome, written: the minimal schedule, its run (copied), shrink.json and the page. */
function writeShrunk(
  dir: string,
  out: string,
  original: FailingRun,
  start: Candidate,
  result: SearchResult,
  elapsedS: number,
): ShrinkResult {
  const smaller = isSmaller(result.best, start);
  const minimalConfig: TestConfig = {
    ...original.config,
    schedule: result.best.faults,
    timeLimitS: result.best.timeLimitS,
    concurrency: result.best.concurrency,
  };
  const minimalSchedule = join(out, 'minimal-schedule.json');
  writeFileSync(minimalSchedule, `${JSON.stringify(stamped(scheduleFileOf(minimalConfig)), null, 2)}\n`);
  let minimalRun = resolve(dir);
  const firstHit = result.bestTrials.find((t) => t.dir);
  if (smaller && firstHit?.dir) {
    minimalRun = join(out, 'minimal');
    cpSync(firstHit.dir, minimalRun, { recursive: true });
  }
  const page = join(out, 'shrink.html');
  const shrunk: ShrinkResult = { ...result, original, out, smaller, minimalSchedule, page, minimalRun, elapsedS };
  const minimal = smaller && existsSync(runFile(minimalRun, 'results')) ? loadFailingRun(minimalRun) : original;
  writeFileSync(
    join(out, 'shrink.json'),
    `${JSON.stringify(
      stamped({
        original: { dir: resolve(dir), ...start },
        minimal: { dir: minimalRun, ...result.best, violation: minimal.violation },
        smaller,
        runs: result.runs,
        elapsedS,
        stoppedBy: result.stoppedBy ?? null,
        reproduce: reproduceCommand(minimalSchedule),
      }),
      null,
      2,
    )}\n`,
  );
  writeFileSync(page, shrinkHtml(shrunk, minimal, reproduceCommand(minimalSchedule)));
  return shrunk;
}

export const reproduceCommand = (schedule: string) => `${cliCommand} run --schedule ${resolve(schedule)}`;
