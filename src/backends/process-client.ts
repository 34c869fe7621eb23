/**
 * A lock client that is another program: the team's own client library behind a small
 * adapter that speaks the client protocol (client-protocol.ts) on stdin/stdout. The worker
 * starts one per client, as its own child, so a client pause stops both.
 *
 * What the program answers is what the history records: ok, fail, or unknown (`info`).
 * A program that crashes, stops answering, or answers something that is not the protocol
 * ends the request it was asked as unknown and is then broken: onBroken says why in one
 * line (the worker stops its loop, and the run is marked not as configured).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DefiniteFailure } from '../history/definite-failure.js';
import { createCgroup, killCgroup, removeCgroup } from '../util/cgroup.js';
import { withDeadline } from '../util/deadline.js';
import type { AcquireOptions, Grant, LockClient, ReleaseResult } from './backend.js';
import {
  type Answer,
  type Extension,
  InitDeclined,
  type InitRequest,
  MAX_PROGRAM_POINTS,
  PROTOCOL_VERSION,
  ProtocolError,
  parseAnswer,
  parseAt,
  parseExtension,
  parseInitOk,
  parseObject,
  type Request,
} from './client-protocol.js';
import { crashWords, STDERR_LINES_KEPT } from './crash-words.js';
import { splitLines } from './line-splitter.js';

/** How a program is started: what it needs before it is asked anything. */
export interface ProgramLaunch {
  /** A shell command line: `python3 client.py`, `node adapter.mjs --flag`. */
  command: string;
  /** Where it runs (a module backend's folder, the campaign file's). */
  cwd?: string;
  /**
   * The name of a cgroup to run the program in (cluster/labels.ts clientCgroupName): all it
   * starts, daemons that call setsid too, then ends with it. Where cgroups cannot be made
   * (util/cgroup.ts), and without a name, the program's process group only.
   */
  cgroup?: string;
}

/** The program's session: its init, the run's timeouts, and who hears of its points and its break. */
export interface ProgramSession {
  /** Per-request slack beyond the request's own timeout before the program counts as hung. */
  requestTimeoutMs: number;
  /** How long a release may take (beyond the slack); told at init. */
  releaseTimeoutMs?: number;
  /** The init request, less its type and version. */
  init: Omit<InitRequest, 'type' | 'protocol'>;
  /** Told once, in one line, when the program stops speaking the protocol. */
  onBroken?: (why: string) => void;
  /** How long the program may take to answer init (its imports, its first connections). */
  initTimeoutMs?: number;
  /**
   * The program announced a code point (protocol 2); it goes on when this resolves (the
   * nemesis may stop it there first). Absent: it goes on at once.
   */
  onPoint?: (point: string) => Promise<void>;
  /** Whether a fault is aimed at `point`: such a point is counted past MAX_PROGRAM_POINTS too. */
  aimedAt?: (point: string) => boolean;
  /** Told once, when the program first announces a new point past MAX_PROGRAM_POINTS (not counted). */
  onPointsCapped?: (cap: number) => void;
  /**
   * The library extended the grant's lease on its own, or failed to (`extended`,
   * `extend_failed`): told while a grant is held, from its acquire's ok to its release's
   * request; an extension outside a hold extends nothing the history knows of.
   */
  onExtension?: (extension: Extension) => void;
}

export interface ProcessClientOptions extends ProgramLaunch, ProgramSession {}

/** A release's own deadline when the run names none (--release-timeout). */
export const DEFAULT_RELEASE_TIMEOUT_MS = 2000;

/** The run's lease and timeouts, as init tells them (a library that fixes them per session reads them there). */
export const programTimes = (c: {
  ttlMs: number;
  requestTimeoutMs: number;
  acquireTimeoutMs: number;
  releaseTimeoutMs?: number;
}) => ({
  ttl_ms: c.ttlMs,
  request_timeout_ms: c.requestTimeoutMs,
  acquire_timeout_ms: c.acquireTimeoutMs,
  release_timeout_ms: c.releaseTimeoutMs ?? DEFAULT_RELEASE_TIMEOUT_MS,
});

/** Whether an answer line says ok (its shape is parseAnswer's to judge). */
function isOk(line: string): boolean {
  try {
    return parseObject(line).type === 'ok';
  } catch {
    return false;
  }
}

/** Ticks that measure how long a request has waited while this process ran (pauses left out). */
const TICK_MS = 50;
/** A gap between ticks longer than this was a pause (SIGSTOP of this process): counted as this much. */
const MAX_TICK_MS = 250;

/** How long a program's exit waits for the rest of its stderr, when something holds the pipe open. */
export const STDERR_DRAIN_MS = 500;

export class ProcessLockClient implements LockClient {
  private nextId = 1;
  /** The request waiting for its answer (one at a time): the next line the program writes is it. */
  private waiting?: { resolve: (line: string) => void; reject: (err: Error) => void; request: Request['type'] };
  private broken?: string;
  private readonly leases = new Map<string, unknown>();
  private readonly stderrTail: string[] = [];
  private exited = false;
  /** The version the program answered init with: 1 announces no code points. */
  protocol = 1;
  /** The distinct points this program announced that are counted (at most MAX_PROGRAM_POINTS, and aimed ones). */
  private readonly points = new Set<string>();
  /** Announcements of points past the cap, answered at once and not counted. */
  pointsPastCap = 0;
  /** The name it gave itself in init_ok, for the record. */
  name?: string;
  /** Whether a grant is held: from an acquire's ok to its release's request (extensions are told then only). */
  private holding = false;

  /** Its init, timeouts and listeners: given at the handshake, which may come long after the launch. */
  private session?: ProgramSession;

  private constructor(
    private readonly child: ChildProcess,
    /** Its command line, as errors name it. */
    private readonly command: string,
    /** The program's cgroup, when it runs in one. */
    private readonly cgroup?: string,
  ) {
    splitLines(child.stdout as NodeJS.ReadableStream, {
      line: (line) => this.onLine(line),
      tooLong: (max) => this.fail(`wrote a line longer than ${max / 1024 / 1024} MiB (the cap on a line)`),
    });
    child.stderr?.on('data', (d: Buffer) => {
      // The last lines of its log, to name in a crash (crash-words.ts).
      this.stderrTail.push(...String(d).split('\n').filter(Boolean));
      this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - STDERR_LINES_KEPT));
    });
    child.on('error', (err) => this.fail(`cannot start '${command}': ${err.message}`));
    child.on('exit', (code, signal) => {
      this.exited = true;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      // Its exit can come before the last of its stderr is read, and that last line is
      // usually the reason it crashed: the failure is told at 'close' (its pipes ended), or
      // after a moment when something it left running holds them open.
      const tell = () => {
        const tail = this.stderrTail.length ? ` (stderr: ${crashWords(this.stderrTail)})` : '';
        this.fail(`the client program ${how}${tail}`);
        // The program is over: what it left running goes with its cgroup, also when nobody
        // closes it (a start that failed).
        if (this.cgroup !== undefined) void removeCgroup(this.cgroup);
      };
      void withDeadline(once(child, 'close'), STDERR_DRAIN_MS, () => new Error('pipes held open')).then(tell, tell);
    });
  }

  /** Starts the program and completes the handshake; throws one line when it cannot. */
  static async start(opts: ProcessClientOptions): Promise<ProcessLockClient> {
    const client = ProcessLockClient.launch(opts);
    await client.handshake(opts);
    return client;
  }

  /**
   * Starts the program, to be asked nothing until its handshake: a campaign's cell starts
   * its clients' programs (their interpreters, their imports) while other cells' workloads
   * run, rather than inside its own workload slot.
   */
  static launch(opts: ProgramLaunch): ProcessLockClient {
    // Its own process group: the shell (dash forks rather than execs the command) and the
    // program under it are paused, resumed and killed together, through the group's id.
    // In a cgroup as well, where one can be made: the shell joins it before it runs the
    // command, so that nothing the program starts can leave it.
    const cgroup = opts.cgroup === undefined ? undefined : createCgroup(opts.cgroup);
    const stdio = ['pipe', 'pipe', 'pipe'] as const;
    const child =
      cgroup === undefined
        ? spawn(opts.command, { shell: true, detached: true, cwd: opts.cwd, stdio: [...stdio] })
        : spawn(
            '/bin/sh',
            [
              '-c',
              'echo $$ > "$1" && exec /bin/sh -c "$2"',
              'lockchaos-client',
              join(cgroup, 'cgroup.procs'),
              opts.command,
            ],
            { detached: true, cwd: opts.cwd, stdio: [...stdio] },
          );
    // A program that exits before reading: its stdin closes; not a crash of this process.
    child.stdin?.on('error', () => {});
    return new ProcessLockClient(child, opts.command, cgroup);
  }

  /** The init request and its answer; throws one line when the program declines or cannot. */
  async handshake(session: ProgramSession): Promise<void> {
    const { command } = this;
    this.session = session;
    // Broken before it was asked (it exited at its start): told now, as at an init it broke on.
    if (this.broken) {
      session.onBroken?.(this.broken);
      throw new ProtocolError(this.broken);
    }
    const init: InitRequest = { type: 'init', protocol: PROTOCOL_VERSION, ...session.init };
    const line = await this.ask(init, 0, session.initTimeoutMs ?? 30_000);
    try {
      const ok = parseInitOk(line);
      this.protocol = ok.protocol;
      if (ok.name !== undefined) this.name = ok.name;
    } catch (err) {
      this.fail((err as Error).message);
      // A program that declines says why in its own words: the one line is theirs.
      if (err instanceof InitDeclined) throw new InitDeclined(`client '${command}': ${err.message}`);
      throw new Error(`client '${command}': ${(err as Error).message}`);
    }
  }

  /** The session, once the handshake began: requests come only after it. */
  private get opts(): ProgramSession {
    if (!this.session) throw new Error('the client program was asked before its handshake');
    return this.session;
  }

  /**
   * The program's process group as a negative pid (what kill(2) signals as a group), for the
   * client pause: the program itself, not only the shell that started it, stops with the worker.
   */
  get pid(): number | undefined {
    return this.child.pid === undefined ? undefined : -this.child.pid;
  }

  /** Kills the shell and the program under it (all in its cgroup, when it has one). */
  private kill(): void {
    if (this.cgroup !== undefined) killCgroup(this.cgroup);
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  async acquire(lock: string, o: AcquireOptions): Promise<Grant | null> {
    const id = this.nextId++;
    const answer = await this.request(
      { type: 'acquire', id, key: lock, ttl_ms: o.ttlMs, timeout_ms: o.timeoutMs },
      o.timeoutMs,
    );
    if (answer.type === 'fail') throw new DefiniteFailure(answer.error);
    if (answer.type === 'unknown') throw new Error(answer.error);
    const owner = `${this.opts.init.client}:${id}`;
    if (answer.lease !== undefined) this.leases.set(owner, answer.lease);
    const grant: Grant = { lock, owner, validityMs: answer.validity_ms ?? o.ttlMs };
    if (answer.token !== undefined) grant.token = answer.token;
    return grant;
  }

  /** A `fail` answer's error is the library's reason, kept as the program gave it. */
  async release(grant: Grant): Promise<ReleaseResult> {
    const id = this.nextId++;
    this.holding = false;
    const lease = this.leases.get(grant.owner);
    this.leases.delete(grant.owner);
    const request: Request = { type: 'release', id, key: grant.lock, ...(lease === undefined ? {} : { lease }) };
    const answer = await this.request(request, this.opts.releaseTimeoutMs ?? DEFAULT_RELEASE_TIMEOUT_MS);
    if (answer.type === 'unknown') throw new Error(answer.error);
    return answer.type === 'ok' ? true : { released: false, reason: answer.error };
  }

  async close(): Promise<void> {
    if (!this.exited) {
      this.broken ??= 'closed';
      const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
      this.child.stdin?.end();
      const timer = setTimeout(() => this.kill(), 2000);
      await exited;
      clearTimeout(timer);
    }
    // What the program left running (a daemon) ends with it.
    if (this.cgroup !== undefined) await removeCgroup(this.cgroup);
  }

  private async request(request: Request & { id: number }, ownTimeoutMs: number): Promise<Answer> {
    const line = await this.ask(request, request.id, ownTimeoutMs + 2 * this.opts.requestTimeoutMs);
    try {
      return parseAnswer(line, request.id, request.type === 'acquire' ? 'acquire' : 'release');
    } catch (err) {
      this.fail(`${request.type} ${request.id}: ${(err as Error).message}`);
      throw err;
    }
  }

  /** Writes one request line and resolves with the next line the program writes. */
  private ask(request: Request, id: number, limitMs: number): Promise<string> {
    if (this.broken) return Promise.reject(new Error(`client program unusable: ${this.broken}`));
    return new Promise<string>((resolve, reject) => {
      let waitedMs = 0;
      let last = Date.now();
      const tick = setInterval(() => {
        const now = Date.now();
        waitedMs += Math.min(now - last, MAX_TICK_MS);
        last = now;
        if (waitedMs > limitMs) this.fail(`no answer to ${request.type}${id ? ` ${id}` : ''} within ${limitMs} ms`);
      }, TICK_MS);
      const done = () => {
        clearInterval(tick);
        this.waiting = undefined;
      };
      this.waiting = {
        request: request.type,
        resolve: (line) => {
          done();
          resolve(line);
        },
        reject: (err) => {
          done();
          reject(err);
        },
      };
      this.child.stdin?.write(`${JSON.stringify(request)}\n`);
    });
  }

  private onLine(line: string): void {
    if (line.trim() === '') return;
    // A code point (protocol 2), at any time, inside a request or between them (an
    // auto-extension thread): answered `go` once the nemesis lets it go on. An extension's
    // report likewise comes at any time, and is answered nothing.
    if (line.includes('"at"') || line.includes('"extend')) {
      let point: string | undefined;
      let extension: Extension | undefined;
      try {
        const m = parseObject(line);
        point = parseAt(m);
        extension = point === undefined ? parseExtension(m) : undefined;
      } catch (err) {
        this.fail((err as Error).message);
        return;
      }
      if (extension !== undefined) {
        if (this.holding) this.session?.onExtension?.(extension);
        return;
      }
      if (point !== undefined) {
        const go = () => {
          if (!this.broken) this.child.stdin?.write(`${JSON.stringify({ type: 'go', point })}\n`);
        };
        if (!this.counts(point)) {
          go();
          return;
        }
        void (this.session?.onPoint?.(point) ?? Promise.resolve()).then(go, go);
        return;
      }
    }
    const waiting = this.waiting;
    if (!waiting) {
      this.fail(`an answer nobody asked for: ${line.slice(0, 80)}`);
      return;
    }
    // Held from its ok's line on: an extension the program writes right behind it (often in
    // the same chunk, read before the acquire's caller runs again) is the new grant's.
    if (waiting.request === 'acquire') this.holding = isOk(line);
    waiting.resolve(line);
  }

  /** Whether `point` is counted: one already seen, one aimed at, or a new one within MAX_PROGRAM_POINTS. */
  private counts(point: string): boolean {
    if (this.points.has(point)) return true;
    if (this.points.size < MAX_PROGRAM_POINTS || this.session?.aimedAt?.(point)) {
      this.points.add(point);
      return true;
    }
    if (this.pointsPastCap++ === 0) this.session?.onPointsCapped?.(MAX_PROGRAM_POINTS);
    return false;
  }

  /** The program is broken from now on: the request waiting ends (unknown), onBroken is told once. */
  private fail(why: string): void {
    if (this.broken) return;
    this.broken = why;
    this.waiting?.reject(new ProtocolError(why));
    if (!this.exited) this.kill();
    this.session?.onBroken?.(why);
  }
}
