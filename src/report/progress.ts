/**
 * Progress of a run while its workload goes: elapsed and remaining time, operations per
 * second, the faults in effect, and violations seen so far (overlapping holds, counted
 * cheaply from the op stream as it arrives: a process's acquire completing ok while
 * another process of the same lock has not yet invoked its release).
 *
 * On a TTY (and not under CI=true) one live line on stderr, redrawn twice a second;
 * otherwise a plain line every 5 s. The clock starts at the first op (when the clients
 * have been let go), or at start(). Updates stop at the time limit; the runner calls
 * finish() once every client has stopped (after "time is up: faults healed"), for the
 * closing line with the final count, or stop() for none. The verdict is the runner's.
 *
 * The overlap count is the mutual-exclusion checker's, as far as the ops so far tell
 * (checkers/live-overlaps.ts).
 */
import type { LiveOverlaps } from '../../checkers/live-overlaps.js';
import { shortFaultLabel } from '../nemesis/label.js';
import { isCi } from '../util/terminal.js';

/** What progress needs of an op (an Op, indexed or not). */
export interface ProgressOp {
  type: string;
  f: string;
  process: number | string;
  /** The op's own time (ns since the origin): overlaps are judged on it. */
  time: number;
  key?: string;
  value?: unknown;
}

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  timeLimitS: number;
  /**
   * The overlap count to show, fed by the caller: the runner's, which --stop-on-violation
   * reads too (one count per op, not two).
   */
  overlaps: LiveOverlaps;
  /** With fencing, overlapping holds are expected and not counted: said so. */
  fencing?: boolean;
  /** Default process.stderr. */
  stream?: ProgressStream;
  /** Live single line; default: the stream is a TTY and CI is not set. */
  live?: boolean;
  /** Milliseconds between plain lines (default 5000) or live redraws (default 500). */
  intervalMs?: number;
  /** Milliseconds, for tests (default performance.now). */
  now?: () => number;
  /** Start no timer (tests call tick()). */
  manual?: boolean;
}

export class RunProgress {
  private readonly stream: ProgressStream;
  private readonly live: boolean;
  private readonly now: () => number;
  private started: number | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private drawn = false;
  /** Completed client operations. */
  operations = 0;
  private finished = false;
  private readonly faults = new Map<string, string>();
  /** (time, operations) samples for the recent rate. */
  private samples: [number, number][] = [];

  constructor(private readonly options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
    // TERM=dumb: no escape sequences, so no line redrawn in place either.
    this.live = options.live ?? (Boolean(this.stream.isTTY) && !isCi() && process.env.TERM !== 'dumb');
    this.now = options.now ?? (() => performance.now());
  }

  /** Starts the clock (and the timers); the first op does it too. Idempotent. */
  start(): void {
    if (this.started !== undefined || this.stopped) return;
    this.started = this.now();
    this.samples.push([this.started, this.operations]);
    if (!this.options.manual) {
      const every = this.options.intervalMs ?? (this.live ? 500 : 5000);
      this.timer = setInterval(() => this.tick(), every);
      this.timer.unref?.();
      // The closing line exactly at the limit, before the runner logs what comes next.
      this.deadline = setTimeout(() => this.tick(), this.options.timeLimitS * 1000);
      this.deadline.unref?.();
    }
  }

  /** Feeds one op; returns it, so that a record function can be wrapped in one line. */
  onOp<T extends ProgressOp>(op: T): T {
    if (this.started === undefined) this.start();
    if (op.process === 'nemesis') {
      const m = /^(start|stop)-(.+)$/.exec(op.f);
      if (m) {
        const id = `${m[2]}:${op.key ?? ''}`;
        if (m[1] === 'start' && op.type === 'ok') this.faults.set(id, shortFaultLabel(m[2] as string, op.value));
        else if (m[1] === 'stop' && op.type !== 'invoke') this.faults.delete(id);
      }
      return op;
    }
    if (op.type !== 'invoke') this.operations++;
    return op;
  }

  /** Overlapping holds so far (the mutual-exclusion checker's count, as far as the ops tell). */
  get overlaps(): number {
    return this.options.overlaps.overlaps;
  }

  elapsedS(): number {
    return this.started === undefined ? 0 : (this.now() - this.started) / 1000;
  }

  /** Operations per second over the last ~5 s. */
  rate(): number {
    const t = this.now();
    const first = this.samples[0];
    if (!first) return 0;
    const dt = (t - first[0]) / 1000;
    return dt > 0 ? (this.operations - first[1]) / dt : 0;
  }

  /** The status, in full (the plain lines, and a live line where it fits). */
  line(): string {
    const { elapsed, left, faults } = this.status();
    return [
      `${elapsed.toFixed(1)} s of ${this.options.timeLimitS} s, ${left.toFixed(1)} s left`,
      `${Math.round(this.rate())} ops/s (${this.operations.toLocaleString('en-US')} ops)`,
      `overlapping holds: ${this.overlaps}${this.options.fencing ? ' (expected with fencing)' : ''}`,
      `faults: ${faults.length ? faults.join(', ') : 'none'}`,
    ].join(' · ');
  }

  /**
   * The status in at most `width` characters: the full line where it fits, else a short
   * form whose overlap count and fault count always stay; only the faults' names are cut.
   */
  fit(width: number): string {
    const full = this.line();
    if (full.length <= width) return full;
    const { elapsed, faults } = this.status();
    const head = [
      `${elapsed.toFixed(1)}/${this.options.timeLimitS} s`,
      `${Math.round(this.rate())} ops/s`,
      `overlaps: ${this.overlaps}${this.options.fencing ? ' (fenced)' : ''}`,
    ].join(' · ');
    const label = faults.length ? `faults ${faults.length}: ` : 'faults: none';
    const names = faults.join(', ');
    const room = width - head.length - ' · '.length - label.length;
    if (faults.length === 0 || names.length <= room) return `${head} · ${label}${names}`;
    return room >= 2
      ? `${head} · ${label}${names.slice(0, room - 1)}…`
      : `${head} · faults ${faults.length}`.slice(0, width);
  }

  private status() {
    const elapsed = Math.min(this.elapsedS(), this.options.timeLimitS);
    return { elapsed, left: Math.max(0, this.options.timeLimitS - elapsed), faults: [...this.faults.values()] };
  }

  /** One update: the live line redrawn, or a plain line. Stops at the time limit. */
  tick(): void {
    if (this.stopped || this.finished || this.started === undefined) return;
    const t = this.now();
    this.samples.push([t, this.operations]);
    while (this.samples.length > 2 && t - (this.samples[1] as [number, number])[0] >= 5000) this.samples.shift();
    if (this.elapsedS() >= this.options.timeLimitS - 0.01) {
      // Time is up: no more updates; the closing line waits for the clients (finish()).
      this.pause();
      return;
    }
    if (this.live) {
      // The first redraw waits a second: the runner's own log lines come first.
      if (this.elapsedS() < 1) return;
      // One column short of the width: a line that fills it wraps on some terminals.
      this.stream.write(`\r\x1b[2K${this.fit((this.stream.columns ?? 120) - 1)}`);
      this.drawn = true;
    } else {
      this.stream.write(`progress: ${this.line()}\n`);
    }
  }

  /** Stops the updates (clearing the live line); ops are still counted. */
  private pause(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.deadline) clearTimeout(this.deadline);
    this.timer = undefined;
    this.deadline = undefined;
    if (this.live && this.drawn) this.stream.write('\r\x1b[2K');
    this.drawn = false;
  }

  /** The closing line, once every client has stopped: the final count. Idempotent. */
  finish(): void {
    if (this.finished || this.stopped) return;
    this.finished = true;
    const total = this.elapsedS();
    const summary = `workload done: ${total.toFixed(1)} s, ${this.operations.toLocaleString('en-US')} ops (${Math.round(this.operations / Math.max(total, 0.001))} ops/s), ${this.options.fencing ? `${this.overlaps} overlapping holds (not counted with fencing)` : `${this.overlaps} overlapping holds seen`}`;
    this.stop();
    this.stream.write(`${this.live ? '\r\x1b[2K' : ''}${summary}\n`);
  }

  /** Stops updating; clears the live line. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.pause();
  }
}
