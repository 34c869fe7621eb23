/**
 * Does a client program speak the client protocol? Against a real server of the backend
 * (its nodes started in containers, removed after), two instances of the program go
 * through what a run asks of them: init, acquire, the other's acquire while the lock is
 * held, a hold past the servers' session timeout, release, acquire again, release, an acquire whose grant is abandoned (as after a
 * cycle that ended unknown) and one after it, which must be granted, end of input. Every
 * answer is held to the protocol (client-protocol.ts); the first problem is the verdict, in one line. What the
 * lock decides (ok, fail, unknown) is the run's to judge, not this check's, but for one
 * thing: a program that was never granted the lock (every acquire failed or unknown) is
 * refused, since it showed nothing a run could judge (most often: written for another
 * server than the one it was given).
 */
import { randomBytes } from 'node:crypto';
import { type Backend, type Grant, releaseFailure } from '../backends/backend.js';
import type { Extension } from '../backends/client-protocol.js';
import { ProcessLockClient, programTimes } from '../backends/process-client.js';
import { startCluster } from '../cluster/cluster.js';
import { ensureEngine, ensureImage } from '../cluster/docker-engine.js';
import { clientCgroupName } from '../cluster/labels.js';
import { removeResources } from '../cluster/remove-resources.js';
import { DEFAULTS } from '../run-data/config.js';
import { prepareRun } from '../run-data/prepare.js';
import { errorMessage } from '../util/errors.js';
import { sleep } from '../util/monotonic-clock.js';
import { imagesOf } from './images.js';

export interface ClientCheckResult {
  /** What each step answered, in words. */
  steps: string[];
  /** The protocol problem that ended the check, in one line; undefined: it conforms. */
  problem?: string;
  /** Spoke the protocol, but no acquire was granted: refused (`problem` says what to do). */
  neverGranted?: true;
  /** The protocol version the program answered init with. */
  protocol?: number;
}

const KEY = 'lockchaos:client-check';
/** How long an acquire may wait behind an abandoned grant of a 1 s lease. */
const ABANDONED_WAIT_MS = 4000;
/** How long past the cluster's TTL (its servers' session timeout) the first grant is held. */
const HOLD_PAST_TTL_MS = 1000;

/** What the check is given: the backend, the program's command and folder, how long init may take. */
export interface ClientCheckOptions {
  backend: string;
  command: string;
  cwd?: string;
  /** How long each instance may take to answer init. */
  initTimeoutMs?: number;
  /** The backend was not chosen but assumed (no --backend): a refusal says how to choose. */
  assumed?: boolean;
  log?: (line: string) => void;
}

export async function checkClientProgram(opts: ClientCheckOptions): Promise<ClientCheckResult> {
  // The backend's cluster as a run of it with 2 s leases would have it.
  const { config, backend, nodeSpecs } = await prepareRun({
    ...DEFAULTS,
    name: 'client-check',
    seed: 0,
    backend: opts.backend,
    ttlMs: 2000,
  });
  await ensureEngine();
  await ensureImage({ build: true, log: opts.log, ...imagesOf(nodeSpecs, config.backendModule) });
  const runId = randomBytes(4).toString('hex');
  const talk = new Conversation(opts, runId, backend);
  try {
    opts.log?.(`starting ${backend.name} (run ${runId})...`);
    const cluster = await startCluster(runId, nodeSpecs);
    const nodes = cluster.nodes
      .filter((n) => n.role === 'node')
      .map((n) => ({ name: n.name, host: n.ip, port: n.port }));
    await converse(talk, [await talk.start('c0', nodes), await talk.start('c1', nodes)], config.ttlMs);
    if (!talk.problem && talk.grants === 0) {
      const which = opts.assumed
        ? `; no --backend was given, so this checked against ${backend.name}: give --backend NAME for the servers the program is for`
        : `; check that it connects to the ${backend.name} servers init names`;
      talk.neverGranted = true;
      talk.problem = `${talk.acquires} acquires, none ok: a program that never holds the lock shows nothing a run can judge${which}`;
    }
  } catch (err) {
    talk.problem ??= errorMessage(err).split('\n')[0];
  } finally {
    await Promise.all(talk.programs.map((p) => p.close().catch(() => {})));
    await removeResources({ runId }).catch(() => {});
  }
  const { steps, problem, programs } = talk;
  if (problem === undefined) return programs[0] ? { steps, protocol: programs[0].protocol } : { steps };
  return talk.neverGranted ? { steps, problem, neverGranted: true } : { steps, problem };
}

/** A lock node as a client program's init names it. */
type InitNode = { name: string; host: string; port: number };

/**
 * The check's talk with its programs: each request, its answer in words in the steps, and
 * the first problem (a program that broke, an answer off the protocol), after which no
 * request is made.
 */
class Conversation {
  readonly steps: string[] = [];
  readonly programs: ProcessLockClient[] = [];
  problem: string | undefined;
  neverGranted = false;
  acquires = 0;
  grants = 0;
  /** Each instance's extensions its library reported while it held (`extended`, `extend_failed`), not yet said. */
  private readonly extensions = new Map<string, Extension[]>();

  constructor(
    private readonly opts: ClientCheckOptions,
    private readonly runId: string,
    private readonly backend: Pick<Backend, 'name' | 'clientLogin'>,
  ) {}

  /** An instance of the program, started and past its init. */
  async start(client: string, nodes: InitNode[]): Promise<ProcessLockClient> {
    const { opts, backend } = this;
    const program = await ProcessLockClient.start({
      command: opts.command,
      cwd: opts.cwd,
      cgroup: clientCgroupName(this.runId, client),
      requestTimeoutMs: 2000,
      initTimeoutMs: opts.initTimeoutMs ?? 15_000,
      init: {
        client,
        backend: backend.name,
        nodes,
        options: {},
        ...programTimes({ ttlMs: 5000, requestTimeoutMs: 2000, acquireTimeoutMs: 2000 }),
        ...(backend.clientLogin ? { login: backend.clientLogin } : {}),
      },
      onBroken: (why) => {
        this.problem ??= `${client}: ${why}`;
      },
      onExtension: (e) => this.extensions.set(client, [...(this.extensions.get(client) ?? []), e]),
    });
    this.programs.push(program);
    this.steps.push(`${client}: init_ok`);
    return program;
  }

  /** The extensions `client`'s library reported since last said, as a step ("c0's library extended its lease 2× ..."). */
  sayExtensions(client: string): void {
    const told = this.extensions.get(client) ?? [];
    this.extensions.delete(client);
    const words = extensionWords(told);
    if (words) this.steps.push(`${client}'s library ${words}`);
  }

  /** One request, its answer in words in the steps; nothing once the program broke (the problem says why). */
  async step(what: string, request: () => Promise<string>): Promise<void> {
    try {
      this.steps.push(`${what}: ${await request()}`);
    } catch (err) {
      if (!this.problem) this.steps.push(`${what}: ${kindOf(err)}`);
    }
  }

  async acquire(what: string, program: ProcessLockClient, timeoutMs: number, ttlMs = 5000): Promise<Grant | null> {
    let grant: Grant | null = null;
    this.acquires += 1;
    await this.step(what, async () => {
      grant = await program.acquire(KEY, { ttlMs, timeoutMs });
      if (grant) this.grants += 1;
      return grantWords(grant);
    });
    return grant as Grant | null;
  }

  /** A refused release shows the program's own words: why it did not release is what a reader needs. */
  release(what: string, program: ProcessLockClient, grant: Grant): Promise<void> {
    return this.step(what, async () => {
      const failure = releaseFailure(await program.release(grant));
      return failure === undefined ? 'ok' : `fail (${failure})`;
    });
  }
}

/**
 * Extensions a library reported, in words: "extended its lease 3× (the last: 5000 ms from
 * then)", "failed to extend it 1× (connection reset)"; undefined when it reported none.
 */
export function extensionWords(told: readonly Extension[]): string | undefined {
  const ok = told.filter((e) => e.extended);
  const failed = told.flatMap((e) => (e.extended ? [] : [e.error]));
  const last = ok.at(-1);
  const parts = [
    ...(ok.length > 0
      ? [
          `extended its lease ${ok.length}×${last?.extended && last.validityMs !== undefined ? ` (the last: ${last.validityMs} ms from then)` : ''}`,
        ]
      : []),
    ...(failed.length > 0
      ? [`failed to extend ${ok.length > 0 ? 'it' : 'its lease'} ${failed.length}× (the last: ${failed.at(-1)})`]
      : []),
  ];
  return parts.length > 0 ? `${parts.join(', and ')} while it held` : undefined;
}

/** What a run asks of two clients, in order, until the first problem; `ttlMs`: the servers' session timeout. */
async function converse(talk: Conversation, [a, b]: ProcessLockClient[], ttlMs: number): Promise<void> {
  if (!a || !b) return;
  const first = await talk.acquire('c0 acquire', a, 1000);
  const grantedAt = Date.now();
  if (!talk.problem) await talk.acquire('c1 acquire while c0 holds', b, 500);
  // Held past the servers' session timeout (the cluster's TTL: PostgreSQL's
  // idle_session_timeout, a ZooKeeper or etcd session's expiry), as a slow holder would
  // be: the program must live through the server ending its idle session, and say so at
  // release (fail or unknown), not crash (its library's error event unhandled).
  if (!talk.problem && first) {
    const holdMs = ttlMs + HOLD_PAST_TTL_MS;
    await sleep(Math.max(0, grantedAt + holdMs - Date.now()));
    if (!talk.problem)
      talk.steps.push(`c0 holds ${holdMs / 1000} s, past the servers' ${ttlMs / 1000} s session timeout`);
  }
  talk.sayExtensions('c0');
  if (!talk.problem && first) await talk.release('c0 release', a, first);
  const second = talk.problem ? null : await talk.acquire('c1 acquire', b, 2000);
  if (!talk.problem && second) await talk.release('c1 release', b, second);
  // A grant the harness abandons (its cycle ended unknown) must not hold the lock for
  // ever: dropped as a crashed client's would be, or left to its 1 s lease.
  const abandoned = talk.problem ? null : await talk.acquire('c1 acquire, then abandoned', b, 2000, 1000);
  if (!talk.problem && abandoned) {
    const after = await talk.acquire('c1 acquire after abandoning', b, ABANDONED_WAIT_MS, 1000);
    if (!talk.problem && after === null) {
      talk.problem = `c1: an acquire after a grant the harness abandoned was not granted within ${ABANDONED_WAIT_MS} ms: let such a grant go as a crashed client would, its session closed or its lease left to expire (docs/client-protocol.md, "Grants that are never released")`;
    }
    if (!talk.problem && after) await talk.release('c1 release', b, after);
  }
}

const grantWords = (g: { token?: number } | null) =>
  g === null ? 'fail' : g.token === undefined ? 'ok' : `ok, token ${g.token}`;

/** An answer that was not ok, in words: fail (DefiniteFailure) or unknown, with the program's error. */
function kindOf(err: unknown): string {
  const definite = err instanceof Error && err.name === 'DefiniteFailure';
  return `${definite ? 'fail' : 'unknown'} (${errorMessage(err).split('\n')[0]})`;
}
