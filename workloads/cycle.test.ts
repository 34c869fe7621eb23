/**
 * recordRelease: a release that did not happen is recorded `fail` with the library's own
 * words (a client program's `fail` error, a refusal's reason, a DefiniteFailure's message);
 * a module backend that answers a bare boolean keeps working.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DefiniteFailure, type Grant, type LockClient, type ReleaseResult } from '../src/backends/backend.js';
import { ProcessLockClient, programTimes } from '../src/backends/process-client.js';
import type { Op } from '../src/history/op.js';
import { Recorder, type UnindexedOp } from '../src/history/recorder.js';
import { packageRoot } from '../src/util/paths.js';
import { Rng } from '../src/util/rng.js';
import { recordRelease } from './cycle.js';
import type { ClientContext } from './workload.js';

const GRANT: Grant = { lock: 'L', owner: 'w0:1', validityMs: 1000 };

function context(lock: LockClient) {
  const ops: UnindexedOp[] = [];
  const ctx: ClientContext = {
    client: 0,
    lock,
    recorder: new Recorder(0, 1, process.hrtime.bigint(), (op) => ops.push(op)),
    rng: new Rng(1),
    opts: {
      lock: 'L',
      storeKey: 'S',
      ttlMs: 1000,
      holdMs: 0,
      acquireTimeoutMs: 100,
      rate: 0,
      concurrency: 1,
      fencing: false,
    },
    stop: new AbortController().signal,
  };
  return { ctx, completions: () => ops.filter((o) => o.type !== 'invoke') as Partial<Op>[] };
}

/** A module backend's client, as a user writes one: its release answers `answer`. */
const answering = (answer: () => Promise<ReleaseResult>): LockClient => ({
  acquire: async () => GRANT,
  release: answer,
  close: async () => {},
});

describe('recordRelease', () => {
  it("records a client program's fail answer with its error, as the program said it", async () => {
    const program = await ProcessLockClient.start({
      command: `node ${join(packageRoot, 'test/fixtures/clients/broken.mjs')} ok`,
      requestTimeoutMs: 10_000,
      initTimeoutMs: 20_000,
      init: {
        client: 'c0',
        backend: 'redis',
        nodes: [],
        options: {},
        ...programTimes({ ttlMs: 1000, requestTimeoutMs: 1000, acquireTimeoutMs: 1000 }),
      },
    });
    try {
      const { ctx, completions } = context(program);
      const grant = (await program.acquire('L', { ttlMs: 1000, timeoutMs: 100 })) as Grant;
      await recordRelease(ctx, grant);
      await recordRelease(ctx, grant);
      expect(completions()).toMatchObject([
        { type: 'ok', f: 'release' },
        { type: 'fail', f: 'release', error: 'not held' },
      ]);
    } finally {
      await program.close();
    }
  });

  it.each<[string, () => Promise<ReleaseResult>, string]>([
    [
      'a refusal with a reason',
      async () => ({ released: false, reason: 'lock expired before DEL' }),
      'lock expired before DEL',
    ],
    [
      'a thrown DefiniteFailure',
      async () => Promise.reject(new DefiniteFailure('not the owner: w1:7')),
      'not the owner: w1:7',
    ],
    ['a bare false (a module backend of before)', async () => false, 'not-held'],
    ['a refusal with an empty reason', async () => ({ released: false, reason: ' ' }), 'not-held'],
  ])('records %s as a failed release with its words', async (_, answer, error) => {
    const { ctx, completions } = context(answering(answer));
    await recordRelease(ctx, GRANT);
    expect(completions()).toEqual([expect.objectContaining({ type: 'fail', f: 'release', error })]);
  });

  it('records a bare true as released', async () => {
    const { ctx, completions } = context(answering(async () => true));
    await recordRelease(ctx, GRANT);
    expect(completions()).toEqual([expect.not.objectContaining({ error: expect.anything() })]);
    expect(completions()[0]?.type).toBe('ok');
  });
});
