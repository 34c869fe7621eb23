/**
 * ProcessLockClient with real programs (test/fixtures/clients/broken.mjs), no server: what
 * each answer becomes, and a program that crashes, hangs or answers garbage ends its
 * request unknown and is reported broken once, in one line.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clientCgroupName } from '../cluster/labels.js';
import { cgroupPath, cgroupSupport } from '../util/cgroup.js';
import { packageRoot } from '../util/paths.js';
import { MAX_PROGRAM_POINTS } from './client-protocol.js';
import { ProcessLockClient, programTimes, STDERR_DRAIN_MS } from './process-client.js';

const program = (how: string) => `node ${join(packageRoot, 'test/fixtures/clients/broken.mjs')} ${how}`;
const init = {
  client: 'c0',
  backend: 'redis',
  nodes: [{ name: 'n1', host: '127.0.0.1', port: 1 }],
  options: {},
  ...programTimes({ ttlMs: 1000, requestTimeoutMs: 1000, acquireTimeoutMs: 1000 }),
};
const opened: ProcessLockClient[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()));
});

async function start(how: string, broken: string[] = [], requestTimeoutMs = 10_000) {
  const c = await ProcessLockClient.start({
    command: program(how),
    requestTimeoutMs,
    initTimeoutMs: 20_000,
    init,
    onBroken: (why) => broken.push(why),
  });
  opened.push(c);
  return c;
}

describe('ProcessLockClient, protocol 2', () => {
  it('a point announced inside a request waits for the nemesis, then goes on', async () => {
    const points: string[] = [];
    let letGo: () => void = () => {};
    const c = await ProcessLockClient.start({
      command: program('points'),
      requestTimeoutMs: 10_000,
      initTimeoutMs: 20_000,
      init,
      onPoint: (point) => {
        points.push(point);
        return new Promise<void>((resolve) => {
          letGo = resolve;
        });
      },
    });
    opened.push(c);
    expect(c.protocol).toBe(2);
    // init told it the run's lease and timeouts (the fixture names itself by them).
    expect(c.name).toBe('ttl_ms=1000 request_timeout_ms=1000 acquire_timeout_ms=1000 release_timeout_ms=2000');
    let granted = false;
    const grant = c.acquire('L', { ttlMs: 1000, timeoutMs: 1000 }).then((g) => {
      granted = true;
      return g;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(points).toEqual(['in-lib']);
    expect(granted).toBe(false); // held at the point until the nemesis says go
    letGo();
    expect(await grant).toMatchObject({ token: 1 });
  });

  it("tells the library's extensions while a grant is held, and none before its ok or after its release began", async () => {
    const told: unknown[] = [];
    const c = await ProcessLockClient.start({
      command: program('extends'),
      requestTimeoutMs: 10_000,
      initTimeoutMs: 20_000,
      init,
      onExtension: (e) => told.push(e),
    });
    opened.push(c);
    const grant = await c.acquire('L', { ttlMs: 1000, timeoutMs: 1000 });
    // The two it writes after its ok, however loaded the machine: then the release.
    for (let waited = 0; told.length < 2 && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(await c.release(grant!)).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(told).toEqual([
      { extended: true, validityMs: 700 },
      { extended: false, error: 'NOSCRIPT' },
    ]);
  });

  it('counts at most MAX_PROGRAM_POINTS distinct points of a program (and one aimed at), says so once, answers every one', async () => {
    const counted = new Set<string>();
    const capped: number[] = [];
    const c = await ProcessLockClient.start({
      command: `${program('many-points')} 2000`,
      requestTimeoutMs: 10_000,
      initTimeoutMs: 20_000,
      init,
      onPoint: async (point) => {
        counted.add(point);
      },
      aimedAt: (point) => point === 'p-1500',
      onPointsCapped: (cap) => capped.push(cap),
    });
    opened.push(c);
    expect(await c.acquire('L', { ttlMs: 1000, timeoutMs: 1000 })).toMatchObject({ token: 1 });
    // Again: the same names, the lock now held (the points come before the answer).
    await expect(c.acquire('L', { ttlMs: 1000, timeoutMs: 1000 })).rejects.toThrow('busy');
    expect(counted.size).toBe(MAX_PROGRAM_POINTS + 1);
    expect(counted.has('p-0') && counted.has(`p-${MAX_PROGRAM_POINTS - 1}`) && counted.has('p-1500')).toBe(true);
    expect(counted.has(`p-${MAX_PROGRAM_POINTS}`)).toBe(false);
    expect(capped).toEqual([MAX_PROGRAM_POINTS]);
    expect(c.pointsPastCap).toBe(2 * (2000 - MAX_PROGRAM_POINTS - 1));
  });

  it('a program that declines init says why, in its own words', async () => {
    const err = await start('decline').catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).name).toBe('InitDeclined');
    expect((err as Error).message).toMatch(/declined init: drives etcd, not redis$/);
  });
});

describe('ProcessLockClient', () => {
  it('turns ok into a grant with its token, fail into a definite failure, and gives the lease back', async () => {
    const c = await start('ok');
    expect(c.pid).toBeLessThan(0); // its process group: the shell and the program under it
    const grant = await c.acquire('L', { ttlMs: 1000, timeoutMs: 100 });
    expect(grant).toMatchObject({ lock: 'L', token: 1, validityMs: 1000 });
    await expect(c.acquire('L', { ttlMs: 1000, timeoutMs: 100 })).rejects.toMatchObject({
      name: 'DefiniteFailure',
      message: 'busy',
    });
    // The lease given back is the holder's: released; a second release is not held.
    expect(await c.release(grant as never)).toBe(true);
    expect(await c.release(grant as never)).toEqual({ released: false, reason: 'not held' });
  });

  it('a program that crashes at start: one line with its exit and its last stderr', async () => {
    const broken: string[] = [];
    await expect(start('crash', broken)).rejects.toThrow(/exited with code 1 \(stderr: ImportError/);
    expect(broken).toHaveLength(1);
  });

  it('a crash whose last stderr comes after its exit: the failure still names it', async () => {
    // The shell exits at once; what it started writes the reason only once the shell is
    // gone (reaped), as a runtime's last words can reach the pipe after the exit is heard.
    const broken: string[] = [];
    const late = `( while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo 'ReplyError: late words' >&2 ) & exit 1`;
    const c = ProcessLockClient.launch({ command: late });
    opened.push(c);
    await expect(c.handshake({ requestTimeoutMs: 10_000, init, onBroken: (why) => broken.push(why) })).rejects.toThrow(
      /exited with code 1 \(stderr: ReplyError: late words\)/,
    );
    expect(broken).toHaveLength(1);
  });

  it('a crash that leaves its stderr held open: the failure is told all the same', async () => {
    const broken: string[] = [];
    // What it leaves holds its pipes until killed: waiting for them alone would never end.
    const c = ProcessLockClient.launch({ command: `sleep infinity & echo 'the reason' >&2; exit 1` });
    opened.push(c);
    try {
      await expect(
        c.handshake({ requestTimeoutMs: 10_000, init, onBroken: (why) => broken.push(why) }),
      ).rejects.toThrow(/exited with code 1 \(stderr: the reason\)/);
      expect(broken).toHaveLength(1);
    } finally {
      // What it left running (no cgroup here): its process group (pid is the group's, negated).
      if (c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
    }
  });

  it.each([
    ['garbage', /acquire 1: not JSON: lock acquired!/],
    ['string-token', /acquire 1: token "1" is not an integer/],
    ['no-id', /acquire 1: answer without an id/],
  ])('%s: the request ends unknown, the program is broken for good', async (how, why) => {
    const broken: string[] = [];
    const c = await start(how, broken);
    const first = c.acquire('L', { ttlMs: 1000, timeoutMs: 100 });
    await expect(first).rejects.not.toMatchObject({ name: 'DefiniteFailure' });
    expect(broken).toEqual([expect.stringMatching(why)]);
    await expect(c.acquire('L', { ttlMs: 1000, timeoutMs: 100 })).rejects.toThrow(/client program unusable/);
    expect(broken).toHaveLength(1);
  });

  it('a program that stops answering: unknown after its timeout and the slack, never a hang', async () => {
    const broken: string[] = [];
    const c = await ProcessLockClient.start({
      command: program('silent'),
      requestTimeoutMs: 100,
      initTimeoutMs: 300,
      init,
      onBroken: (why) => broken.push(why),
    }).catch((err: Error) => err);
    expect(c).toBeInstanceOf(Error);
    expect(broken).toEqual(['no answer to init within 300 ms']);
  });

  it('a line longer than the cap (1 MiB): the request ends unknown, broken in one line naming the cap', async () => {
    const broken: string[] = [];
    const c = await start('long-line', broken);
    await expect(c.acquire('L', { ttlMs: 1000, timeoutMs: 100 })).rejects.not.toMatchObject({
      name: 'DefiniteFailure',
    });
    expect(broken).toEqual(['wrote a line longer than 1 MiB (the cap on a line)']);
  });
});

/** Processes whose command line is exactly `cmd` (pgrep -fx), as pids. */
const running = (cmd: string) => {
  try {
    return execFileSync('pgrep', ['-fx', cmd], { encoding: 'utf8' }).trim().split('\n').filter(Boolean);
  } catch {
    return []; // pgrep exits 1 when none match
  }
};

describe.skipIf(!('parent' in cgroupSupport()))('ProcessLockClient in a cgroup', () => {
  it('ends what the program daemonised at close, also one that calls setsid and clears its environment', async () => {
    // Unique lengths, to find these sleeps and no others.
    const n = 900 + Math.floor(Math.random() * 99);
    const daemons = [`sleep ${n}.1`, `sleep ${n}.2`];
    const name = clientCgroupName(randomBytes(4).toString('hex'), 'c0');
    const c = await ProcessLockClient.start({
      command: `setsid ${daemons[0]} & setsid env -i /bin/${daemons[1]} & ${program('ok')}`,
      requestTimeoutMs: 10_000,
      initTimeoutMs: 20_000,
      init,
      cgroup: name,
    });
    expect(running(daemons[0] as string)).toHaveLength(1);
    expect(running(`/bin/${daemons[1]}`)).toHaveLength(1);
    await c.close();
    expect(running(daemons[0] as string)).toEqual([]);
    expect(running(`/bin/${daemons[1]}`)).toEqual([]);
    expect(existsSync(cgroupPath(name) as string)).toBe(false);
  });

  it('a program that breaks at its start leaves no cgroup', async () => {
    const name = clientCgroupName(randomBytes(4).toString('hex'), 'c0');
    const started = ProcessLockClient.start({ command: program('crash'), requestTimeoutMs: 1000, init, cgroup: name });
    await expect(started).rejects.toThrow(/exited with code 1/);
    expect(existsSync(cgroupPath(name) as string)).toBe(false);
  });
});

describe('ProcessLockClient, launched ahead of its handshake', () => {
  it('waits unasked until its init, then answers as one started at once', async () => {
    const c = ProcessLockClient.launch({ command: program('ok') });
    opened.push(c);
    // Its interpreter and imports done meanwhile; asked nothing, it answers nothing.
    await new Promise((r) => setTimeout(r, 500));
    await c.handshake({ requestTimeoutMs: 10_000, initTimeoutMs: 20_000, init });
    expect(c.name).toBe('ok');
    const grant = await c.acquire('L', { ttlMs: 1000, timeoutMs: 1000 });
    expect(grant?.token).toBe(1);
  });

  it('one that exited before its handshake: the handshake throws its exit and stderr, onBroken told once', async () => {
    const broken: string[] = [];
    const c = ProcessLockClient.launch({ command: program('crash') });
    opened.push(c);
    await new Promise<void>((resolve) => {
      const wait = setInterval(() => {
        // The exit is known once the client has heard it (its pid's group is gone).
        try {
          process.kill(c.pid ?? 0, 0);
        } catch {
          clearInterval(wait);
          resolve();
        }
      }, 20);
    });
    // Past the longest wait for its stderr: the failure is known before the handshake.
    await new Promise((r) => setTimeout(r, STDERR_DRAIN_MS + 100));
    await expect(c.handshake({ requestTimeoutMs: 10_000, init, onBroken: (why) => broken.push(why) })).rejects.toThrow(
      /^the client program exited with code 1 \(stderr: ImportError: no module named lockclient\)$/,
    );
    // Told by the handshake itself: the failure came when nobody was listening yet.
    expect(broken).toEqual([expect.stringMatching(/exited with code 1/)]);
  });
});
