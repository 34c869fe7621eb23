/**
 * Does a client program speak the client protocol? Against a real server of the backend
 * (its nodes started in containers, removed after), two instances of the program go
 * through what a run asks of them: init, acquire, the other's acquire while the lock is
 * held, release, acquire again, release, end of input. Every answer is held to the
 * protocol (client-protocol.ts); the first problem is the verdict, in one line. What the
 * lock decides (ok, fail, unknown) is the run's to judge, not this check's.
 */
import { randomBytes } from 'node:crypto';
import { loadBackend } from '../backends/index.js';
import { ProcessLockClient } from '../backends/process-client.js';
import { startCluster } from '../cluster/cluster.js';
import { ensureEngine, ensureImage } from '../cluster/engine.js';
import { removeResources } from '../cluster/labels.js';
import { errorMessage, UserError } from '../util/errors.js';
import { checkedNodeSpecs } from './backend-module.js';

export interface ClientCheckResult {
  /** What each step answered, in words. */
  steps: string[];
  /** The protocol problem that ended the check, in one line; undefined: it conforms. */
  problem?: string;
}

const KEY = 'lockchaos:client-check';

export async function checkClientProgram(opts: {
  backend: string;
  command: string;
  cwd?: string;
  log?: (line: string) => void;
}): Promise<ClientCheckResult> {
  const backend = await loadBackend(opts.backend);
  if (!backend) throw new UserError(`unknown backend '${opts.backend}'`);
  const specs = checkedNodeSpecs(backend, { ttlMs: 2000 });
  await ensureEngine();
  await ensureImage({ build: true, log: opts.log, images: specs.flatMap((s) => (s.image ? [s.image] : [])) });
  const runId = randomBytes(4).toString('hex');
  const steps: string[] = [];
  const programs: ProcessLockClient[] = [];
  let problem: string | undefined;
  try {
    opts.log?.(`starting ${backend.name} (run ${runId})...`);
    const cluster = await startCluster(runId, specs);
    const nodes = cluster.nodes
      .filter((n) => n.role === 'node')
      .map((n) => ({ name: n.name, host: n.ip, port: n.port }));
    const start = async (client: string) => {
      const program = await ProcessLockClient.start({
        command: opts.command,
        cwd: opts.cwd,
        requestTimeoutMs: 2000,
        initTimeoutMs: 15_000,
        init: { client, backend: backend.name, nodes, options: {} },
        onBroken: (why) => {
          problem ??= `${client}: ${why}`;
        },
      });
      programs.push(program);
      steps.push(`${client}: init_ok`);
      return program;
    };
    /** One request; its answer in words, or undefined once the program broke. */
    const step = async (what: string, request: () => Promise<string>) => {
      try {
        steps.push(`${what}: ${await request()}`);
      } catch (err) {
        if (problem) return;
        steps.push(`${what}: ${errorMessage(err).startsWith('client program') ? 'broken' : `${kindOf(err)}`}`);
      }
    };
    const a = await start('c0');
    const b = await start('c1');
    let grant: Awaited<ReturnType<ProcessLockClient['acquire']>> = null;
    await step('c0 acquire', async () => {
      grant = await a.acquire(KEY, { ttlMs: 5000, timeoutMs: 1000 });
      return grant?.token === undefined ? 'ok' : `ok, token ${grant.token}`;
    });
    if (!problem)
      await step('c1 acquire while c0 holds', async () =>
        grantWords(await b.acquire(KEY, { ttlMs: 5000, timeoutMs: 500 })),
      );
    if (!problem && grant) await step('c0 release', async () => ((await a.release(grant as never)) ? 'ok' : 'fail'));
    if (!problem) {
      await step('c1 acquire', async () => {
        grant = await b.acquire(KEY, { ttlMs: 5000, timeoutMs: 2000 });
        return grantWords(grant);
      });
    }
    if (!problem && grant) await step('c1 release', async () => ((await b.release(grant as never)) ? 'ok' : 'fail'));
  } catch (err) {
    problem ??= errorMessage(err).split('\n')[0];
  } finally {
    await Promise.all(programs.map((p) => p.close().catch(() => {})));
    await removeResources({ runId }).catch(() => {});
  }
  return problem === undefined ? { steps } : { steps, problem };
}

const grantWords = (g: { token?: number } | null) =>
  g === null ? 'fail' : g.token === undefined ? 'ok' : `ok, token ${g.token}`;

/** An answer that was not ok, in words: fail (DefiniteFailure) or unknown, with the program's error. */
function kindOf(err: unknown): string {
  const definite = err instanceof Error && err.name === 'DefiniteFailure';
  return `${definite ? 'fail' : 'unknown'} (${errorMessage(err).split('\n')[0]})`;
}
