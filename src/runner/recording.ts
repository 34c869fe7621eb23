/**
 * A run's history as it is recorded: appended to history.jsonl, and watched as it grows by
 * the progress line and by --stop-on-violation. What it sees can end the workload early
 * (timeUp): a history that can no longer be written, or the first violation a checker
 * will count.
 */
import { LiveOverlaps } from '../../checkers/live-overlaps.js';
import { LiveViolations } from '../../checkers/live-violations.js';
import type { Op } from '../history/op.js';
import { HistoryWriter } from '../history/writer.js';
import type { TestConfig } from '../run-data/config.js';
import type { StoppedEarly } from '../run-data/run-folder.js';
import { monotonicNow, type Origin } from '../util/monotonic-clock.js';

/** What watches a run's ops as they are recorded (the progress line). */
export interface RunObserver {
  onOp(op: Op): void;
  /** Every client has stopped: the closing line. */
  finish(): void;
  /** Stop without a closing line (the run failed, or finish() was called). */
  stop(): void;
}

/** How the progress line begins, given the run's one overlap count (RunHooks.progress). */
export type ProgressStart = (run: { timeLimitS: number; fencing: boolean; overlaps: LiveOverlaps }) => RunObserver;

export class RunRecording {
  readonly writer: HistoryWriter;
  /**
   * Stops the workload early: time is up, Ctrl-C, the history can no longer be written, or
   * (--stop-on-violation) the first violation a checker will count.
   */
  readonly timeUp = new AbortController();
  private early?: StoppedEarly;
  private nemesisStopFailed = false;
  /** The workload's time zero, once it has begun: only a running workload stops early. */
  private origin?: Origin;
  // The live overlap count of the progress line, and --stop-on-violation's watch for the
  // first violation a checker will count (checkers/live-violations.ts).
  private readonly overlaps?: LiveOverlaps;
  private readonly live?: LiveViolations;
  private progress?: RunObserver;

  constructor(
    path: string,
    private readonly config: TestConfig,
    watch: { progress: boolean; storeKey?: string },
  ) {
    this.writer = new HistoryWriter(path);
    this.overlaps = watch.progress ? new LiveOverlaps() : undefined;
    this.live = config.stopOnViolation
      ? new LiveViolations({
          fencing: config.fencing,
          storeKey: watch.storeKey,
          historySoFar: () => this.writer.ops,
          overlaps: this.overlaps,
        })
      : undefined;
  }

  /** --stop-on-violation ended the workload before its time limit: when, and on what. */
  get stoppedEarly(): StoppedEarly | undefined {
    return this.early;
  }

  /** A fault's stop failed (recorded as info): what it waited on did not come back. */
  get stopFailed(): boolean {
    return this.nemesisStopFailed;
  }

  /** Records one op; a bound function, as the workers and the nemeses are each given it. */
  readonly record = (op: Parameters<HistoryWriter['append']>[0]) => {
    if (op.process === 'nemesis' && op.type === 'info' && op.f.startsWith('stop-')) this.nemesisStopFailed = true;
    const indexed = this.writer.append(op);
    if (this.writer.error) this.timeUp.abort(); // the disk is full: stop, heal, tear down
    // One overlap count per op: the violations' watch feeds the progress line's when it runs.
    if (this.live) this.live.onOp(indexed);
    else this.overlaps?.onOp(indexed);
    if (this.live?.first !== undefined && !this.early && this.origin !== undefined && !this.timeUp.signal.aborted) {
      this.early = { atS: Math.round(Number(monotonicNow() - this.origin) / 1e7) / 100, why: this.live.first };
      this.timeUp.abort();
    }
    this.progress?.onOp(indexed);
    return indexed;
  };

  /** The progress line, from now (the clients are about to connect) until stopProgress(). */
  showProgress(start: ProgressStart | undefined): void {
    this.progress =
      start && this.overlaps
        ? start({ timeLimitS: this.config.timeLimitS, fencing: this.config.fencing, overlaps: this.overlaps })
        : undefined;
  }

  /** The workload begins at `origin`. */
  begin(origin: Origin): void {
    this.origin = origin;
  }

  /** Every client has stopped: the progress line's closing line. */
  finishProgress(): void {
    this.progress?.finish();
  }

  stopProgress(): void {
    this.progress?.stop();
  }
}
