/**
 * A campaign's summary while it runs and when it ends: summary.json, junit.xml and
 * summary.html rewritten whole after every cell and on a heartbeat, so that serve and CI
 * read a current state, a reader elsewhere can tell a campaign that still runs from one
 * whose runner was killed (state.ts), and a campaign killed outright leaves the cells it
 * finished. A campaign that ends in an internal error says so (state failed, and the
 * error), not "running" (which a reader would take for a killed runner).
 */

import { estimate, HEARTBEAT_MS, thisRunner } from '../campaign-data/state.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { UserError } from '../util/errors.js';
import { judge } from './expect.js';
import type { Cell } from './matrix.js';
import { campaignJUnit, summaryHtml } from './report.js';
import type { CampaignPlan } from './validate.js';

export class CampaignRecord {
  private readonly done = new Map<number, CellResult>();
  private readonly t0 = Date.now();
  private readonly startedAt = new Date(this.t0).toISOString();
  private readonly runner = thisRunner();
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly planned: CampaignSummary['planned'];
  /** Why the campaign failed (an internal error), once it did. */
  private failedBy: string | undefined;
  /** A heartbeat's write that threw: the next write the campaign makes throws it. */
  private heartbeatError: unknown;

  constructor(
    private readonly plan: CampaignPlan,
    /** The cells this campaign runs (its shard's), as results name them. */
    private readonly cells: readonly Cell[],
    private readonly dir: string,
    private readonly files: { summaryHtml: string; summaryJson: string; junit: string },
    /** Whether the campaign was stopped, and by what. */
    private readonly stopped: () => { aborted: boolean; by: string },
  ) {
    this.planned = cells.map((c) => ({ index: c.index, id: c.id, expect: c.expect }));
  }

  /** The first summary, written, and the heartbeat's rewrites started. */
  begin(): void {
    this.write(false);
    this.heartbeat = setInterval(() => {
      try {
        this.write(false);
      } catch (err) {
        // Thrown on a timer it would end the process with the folder saying "running".
        this.heartbeatError = err;
        this.stopHeartbeat();
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Cells ended so far. */
  get finished(): number {
    return this.done.size;
  }

  /** Seconds since the campaign started. */
  elapsedS(): number {
    return (Date.now() - this.t0) / 1000;
  }

  /** One more cell ended: the summary says so at once. */
  add(result: CellResult): void {
    this.done.set(result.cell.index, result);
    this.throwHeartbeatError();
    this.write(false);
  }

  /** No more rewrites but the final one. */
  stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }

  /** The final summary, written. */
  end(): CampaignSummary {
    this.stopHeartbeat();
    this.throwHeartbeatError();
    return this.write(true);
  }

  /**
   * The campaign ended in an internal error `err`: summary.json says failed, with the
   * error, and the cells that never ran. It is written first; junit.xml and summary.html
   * after it may be what failed. Never throws: the caller throws `err` itself.
   */
  fail(err: unknown): void {
    this.stopHeartbeat();
    this.failedBy = failureText(err);
    const s = this.summary(true);
    for (const [path, text] of [
      [this.files.summaryJson, () => summaryJson(s)],
      [this.files.junit, () => campaignJUnit(s)],
      [this.files.summaryHtml, () => summaryHtml(s)],
    ] as const) {
      try {
        writeFileAtomic(path, text());
      } catch {
        // What could be written says it; the error itself is the caller's to report.
      }
    }
  }

  private throwHeartbeatError(): void {
    if (this.heartbeatError !== undefined) throw this.heartbeatError;
  }

  private summary(final: boolean): CampaignSummary {
    const { spec, shard, allCells } = this.plan;
    const results = this.cells.map(
      (cell) =>
        this.done.get(cell.index) ??
        ({ cell, durationS: 0, ...judge(cell.expect, { notRun: true }) } satisfies CellResult),
    );
    const { aborted: interrupted, by } = this.stopped();
    const now = Date.now();
    const s: CampaignSummary = {
      name: spec.name,
      source: spec.source,
      dir: this.dir,
      totalCells: allCells.length,
      startedAt: this.startedAt,
      finishedAt: final ? new Date(now).toISOString() : '',
      interrupted,
      state: !final ? 'running' : this.failedBy !== undefined ? 'failed' : interrupted ? 'cut-short' : 'finished',
      updatedAt: new Date(now).toISOString(),
      progress: estimate(this.done.size, this.cells.length, (now - this.t0) / 1000),
      runner: this.runner,
      planned: this.planned,
      met: final && !interrupted && this.failedBy === undefined && results.every((r) => r.met),
      cells: final ? results : results.filter((r) => this.done.has(r.cell.index)),
    };
    if (this.failedBy !== undefined) s.failedBy = this.failedBy;
    else if (final && interrupted) s.cutShortBy = by;
    if (spec.description !== undefined) s.description = spec.description;
    if (shard) {
      s.shard = shard;
      // Every cell by name, so that a merge without some shards can say which cells it lacks.
      s.allCells = allCells.map((c) => ({ index: c.index, id: c.id, expect: c.expect }));
    }
    return s;
  }

  private write(final: boolean): CampaignSummary {
    const s = this.summary(final);
    // Whole files only: serve and CI read them while the campaign runs.
    writeFileAtomic(this.files.summaryJson, summaryJson(s));
    writeFileAtomic(this.files.junit, campaignJUnit(s));
    writeFileAtomic(this.files.summaryHtml, summaryHtml(s));
    return s;
  }
}

/** The most a failed campaign's reason keeps of its error's message. */
const MAX_REASON = 500;

/**
 * Why a campaign failed, in one line of at most MAX_REASON characters: a UserError's own
 * message (bad input met late, said as the command says it), else "internal error: ..."
 * with the error's message.
 */
export function failureText(err: unknown): string {
  const message = (
    err instanceof Error
      ? `${err.name === 'Error' || err instanceof UserError ? '' : `${err.name}: `}${err.message}`
      : String(err)
  )
    .replace(/\s+/g, ' ')
    .trim();
  const cut = message.length > MAX_REASON ? `${message.slice(0, MAX_REASON - 1)}…` : message;
  return err instanceof UserError ? cut : `internal error: ${cut}`;
}
