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
 * The overlap count is the mutual-exclusion checker's, as far as the ops so far tell: a
 * pair of holds of different processes on one lock where the later one began before the
 * earlier one's belief ended (its release invoked, or an info), a belief not yet ended
 * counting as still held (the checker takes an unended one to the end of the run).
 */

/** Ended holds per lock kept for ops that arrive late; holds still believed are all kept. */
const RECENT_HOLDS = 64;

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

const ciEnv = () => {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
};

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
  /** Overlapping pairs whose earlier hold has ended. */
  private confirmed = 0;
  /**
   * Per lock, holds: [start, end) on the ops' clock, end undefined while believed; `later`:
   * while it is believed, the starts of other processes' holds after its own start.
   */
  private readonly holds = new Map<
    string,
    { process: number | string; start: number; end?: number; later: number[] }[]
  >();
  private finished = false;
  private readonly faults = new Map<string, string>();
  /** (time, operations) samples for the recent rate. */
  private samples: [number, number][] = [];

  constructor(private readonly options: ProgressOptions) {
    this.stream = options.stream ?? process.stderr;
    this.live = options.live ?? (Boolean(this.stream.isTTY) && !ciEnv());
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
        if (m[1] === 'start' && op.type === 'ok') this.faults.set(id, faultLabel(m[2] as string, op.value));
        else if (m[1] === 'stop' && op.type !== 'invoke') this.faults.delete(id);
      }
      return op;
    }
    const lock = op.key ?? '';
    if (op.type !== 'invoke') this.operations++;
    if (op.f === 'acquire' && op.type === 'ok') {
      this.holdStarts(lock, op.process, op.time);
    } else if (op.f === 'release' && op.type === 'invoke') {
      this.holdEnds(lock, op.process, op.time);
    } else if (op.type === 'info') {
      // An info ends the process's belief: it never issues again.
      for (const l of this.holds.keys()) this.holdEnds(l, op.process, op.time);
    }
    return op;
  }

  /*
   * Overlaps are judged on the ops' own times, not on arrival order (workers' operations
   * can arrive late): a pair (earlier start A, later start B) overlaps iff B starts before
   * A ends, and is counted once, when both of those times are known.
   */
  private holdStarts(lock: string, process: number | string, start: number) {
    const list = this.holds.get(lock) ?? [];
    this.holds.set(lock, list);
    const hold = { process, start, later: [] as number[] };
    for (const a of list) {
      if (a.process === process) continue;
      if (a.start < start) {
        if (a.end === undefined) a.later.push(start);
        else if (start < a.end) this.confirmed++;
      } else if (a.start > start) hold.later.push(a.start); // arrived first, began later
    }
    list.push(hold);
    // Ended holds beyond the most recent are dropped, so the cost per operation stays
    // small: only an op arriving very late can then miss an overlap. Believed ones stay.
    let ended = list.filter((h) => h.end !== undefined).length;
    for (let i = 0; i < list.length && ended > RECENT_HOLDS; ) {
      if ((list[i] as { end?: number }).end !== undefined) {
        list.splice(i, 1);
        ended--;
      } else i++;
    }
  }

  private holdEnds(lock: string, process: number | string, end: number) {
    const list = this.holds.get(lock) ?? [];
    const a = list.find((h) => h.process === process && h.end === undefined);
    if (!a) return;
    a.end = end;
    this.confirmed += a.later.filter((t) => t < end).length;
    a.later = [];
  }

  /** Overlapping holds so far: ended pairs, and later holds under a belief still held. */
  get overlaps(): number {
    let pending = 0;
    for (const list of this.holds.values()) for (const h of list) if (h.end === undefined) pending += h.later.length;
    return this.confirmed + pending;
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

  /** The status, most important first (a narrow terminal cuts the end). */
  line(): string {
    const elapsed = Math.min(this.elapsedS(), this.options.timeLimitS);
    const left = Math.max(0, this.options.timeLimitS - elapsed);
    const faults = this.faults.size ? [...this.faults.values()].join(', ') : 'none';
    return [
      `${elapsed.toFixed(1)} s of ${this.options.timeLimitS} s, ${left.toFixed(1)} s left`,
      `${Math.round(this.rate())} ops/s (${this.operations.toLocaleString('en-US')} ops)`,
      `overlapping holds: ${this.overlaps}${this.options.fencing ? ' (expected with fencing)' : ''}`,
      `faults: ${faults}`,
    ].join(' · ');
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
      const cols = this.stream.columns ?? 120;
      const text = this.line();
      this.stream.write(`\r\x1b[2K${text.length > cols - 1 ? `${text.slice(0, cols - 2)}…` : text}`);
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

/** A fault, short: its kind and whom it hit. */
function faultLabel(kind: string, value: unknown): string {
  const v = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  if (typeof v.process === 'number') return `${kind} p${v.process}`;
  if (typeof v.client === 'number') return `${kind} client ${v.client}`;
  if (Array.isArray(v.nodes)) return `${kind} ${v.nodes.join(',')}`;
  if (typeof v.shape === 'string') return `${kind} ${v.shape}`;
  if (typeof v.node === 'string') return `${kind} ${v.node}`;
  return kind;
}
