/**
 * A lock client in another language, over the client protocol: redis-py's Lock (Debian's
 * python3-redis) driven against real Redis under client pauses. The pause stops the program
 * itself, not only the worker (its state in /proc is T); a program that breaks makes the
 * run not as configured, in one line; client-check names what a broken program does wrong.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/run-data/parameters.js';
import { prepareRun } from '../../src/run-data/prepare.js';
import { run } from '../../src/runner/run.js';
import { packageRoot } from '../../src/util/paths.js';
import { freshStore, leftovers, lockchaos, requireEngine, runAndRead } from './support.js';

const skip = await requireEngine();
const store = freshStore();
const REDIS_PY = `/usr/bin/python3 ${join(packageRoot, 'examples/clients/redis-py-lock/client.py')}`;
const BROKEN = `node ${join(packageRoot, 'test/fixtures/clients/broken.mjs')}`;
const REFUSING = `node ${join(packageRoot, 'test/fixtures/clients/refusing.mjs')}`;
const FRAGILE = (how: string) => `FRAGILE=${how} node ${join(packageRoot, 'test/fixtures/clients/fragile.mjs')}`;
const EXTENDING = `/usr/bin/python3 ${join(packageRoot, 'test/fixtures/clients/extending.py')}`;
const PG_SESSION = (how: string) =>
  `PG_SESSION=${how} node ${join(packageRoot, 'test/fixtures/clients/pg-session.mjs')}`;

const config = (clientCommand: string, more: Partial<typeof DEFAULTS> = {}) => ({
  ...DEFAULTS,
  name: '',
  seed: 5,
  storeDir: store,
  backend: 'redis',
  fencing: false,
  timeLimitS: 12,
  ttlMs: 1000,
  holdMs: 100,
  nemesisIntervalS: 2,
  clientCommand,
  ...more,
});

/** The pids of processes whose command line is one of `commands` (pgrep -fx). */
function daemonPids(commands: string[]): number[] {
  return commands.flatMap((cmd) => {
    try {
      return execFileSync('pgrep', ['-fx', cmd], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).map(Number);
    } catch {
      return []; // pgrep exits 1 when none match
    }
  });
}

/** The process state letter of pid (R, S, T ...), from /proc. */
const state = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];

describe.skipIf(skip)('a client program (the client protocol)', () => {
  it('redis-py Lock under client pauses: the program is really stopped, and the lease is outlived', async () => {
    const states: string[] = [];
    const programs: string[] = [];
    const r = await run(await prepareRun(config(REDIS_PY, { nemesis: 'client-pause' })), {
      latest: false,
      progress: () => ({
        onOp(op) {
          if (op.f !== 'start-client-pause' || op.type !== 'ok') return;
          // The record names the program itself (python3, under the shell that started it)
          // and its process group: the shell, a child of the worker, leads it.
          const { pid: worker, programPid, programGroup } = op.value as Record<string, number>;
          const group = execFileSync('pgrep', ['-P', String(worker)], { encoding: 'utf8' })
            .trim()
            .split('\n')[0];
          const program = Number(
            execFileSync('pgrep', ['-g', String(group), '-x', 'python3'], { encoding: 'utf8' })
              .trim()
              .split('\n')[0],
          );
          programs.push(`${programPid === program} ${programGroup === Number(group)}`);
          states.push(`${state(worker)}${state(program)}`);
        },
        finish() {},
        stop() {},
      }),
    });
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(['TT']));
    expect(new Set(programs)).toEqual(new Set(['true true']));
    expect(r.conditions).toEqual([]);
    expect(r.results.find((c) => c.checker === 'mutual-exclusion')?.valid).toBe(false);
    expect(r.valid).toBe(false);
  });

  it('a lock that renews itself reports each extension: recorded, and its holds are dated from the last', async () => {
    // Holds of 3 s on a 2 s lease, renewed every third of it by the program's watchdog: a
    // renewal may come 1.3 s late (a loaded machine) before the lease lapses under its holder.
    const r = await runAndRead(store, [
      ...['--backend', 'redis', '--client-command', EXTENDING, '--fencing', 'off', '--seed', '3'],
      ...['--ttl', '2000', '--hold', '3000', '--time-limit', '8', '--concurrency', '2'],
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const extensions = r.history.filter((op) => op.f === 'extend' && op.type === 'ok');
    expect(extensions.length).toBeGreaterThanOrEqual(4);
    expect(new Set(extensions.map((op) => JSON.stringify(op.value)))).toEqual(new Set(['{"validityMs":2000}']));
    const { results } = JSON.parse(readFileSync(join(r.dir, 'results.json'), 'utf8')) as {
      results: { checker: string; details?: { leasedHolds?: number; outlived?: number } }[];
    };
    const evidence = results.find((c) => c.checker === 'evidence')?.details;
    // Every hold outlived its grant's 2 s; none outlived its last extension's.
    expect(evidence?.leasedHolds).toBeGreaterThan(0);
    expect(evidence?.outlived).toBe(0);
    expect(r.left).toEqual([]);
  });

  it('a program that answers garbage: its request ends unknown, the run says so, no stack', async () => {
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--time-limit', '4', '--seed', '1', '--store', store],
      ...['--client-command', `${BROKEN} garbage`],
    ]);
    expect(r.stdout).toMatch(
      /did not run as configured: the programs of clients 0, 1, 2, 3, 4 broke \(acquire 1: not JSON: lock acquired!\)/,
    );
    expect(r.stdout).not.toMatch(/worker \d exited/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('a program announcing 2,000 distinct code points: 64 counted, said once, the verdict kept, no stack', async () => {
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--time-limit', '4', '--seed', '1', '--store', store, '--json'],
      ...['--client-command', `${BROKEN} many-points 2000`],
    ]);
    expect(r.stderr).not.toMatch(/internal error|RangeError|\n\s+at /);
    const notes = r.stderr.split('\n').filter((l) => /announced more than 64 distinct code points/.test(l));
    expect(notes).toHaveLength(1);
    const out = JSON.parse(r.stdout) as {
      verdict: string;
      dir: string;
      conditions: unknown[];
      checkers: { checker: string; counts: boolean }[];
    };
    expect(out.conditions).toEqual([]);
    expect(out.checkers.find((c) => c.checker === 'code-points-capped')).toMatchObject({ counts: false });
    // Each of the 5 programs counts the same 64 names; beside them, the standard points.
    const { coverage } = JSON.parse(readFileSync(join(out.dir, 'results.json'), 'utf8')) as {
      coverage: { point: string }[];
    };
    expect(coverage.filter((c) => /^p-\d+$/.test(c.point))).toHaveLength(64);
    // Each program's lock is its own (no server): clients overlap, and that verdict stands.
    expect(r.code).toBe(out.verdict === 'invalid' ? 1 : 0);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it("a program that crashes when resumed from a client pause: the library's failure, INVALID, exit 1", async () => {
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--nemesis', 'client-pause', '--nemesis-interval', '2', '--time-limit', '8'],
      ...['--fencing', 'off', '--seed', '3', '--store', store, '--client-command', FRAGILE('sigcont')],
    ]);
    expect(r.stdout).toMatch(
      /\n {2}client-program +INVALID +.*the client program \(fragile\) of client \d crashed (under|just after) client-pause at [\d.]+ s: exited with code 1 \(stderr: ReplyError: Connection lost while the process was stopped \(ECONNRESET\)\)/,
    );
    expect(r.stdout).not.toMatch(/did not run as configured|not run as configured/);
    // The headline, the line after the verdict's, names the library's failure too.
    const lines = r.stdout.split('\n');
    const headline = lines[lines.findIndex((l) => l.startsWith('verdict:')) + 1];
    expect(headline).toMatch(/the client program \(fragile\) of client \d crashed/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.code).toBe(1);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('a program that crashes with no fault near: not run as configured, exit 3, as before', async () => {
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--time-limit', '4', '--seed', '1', '--store', store],
      ...['--client-command', FRAGILE('after:3')],
    ]);
    expect(r.stdout).toMatch(
      /did not run as configured: .*broke \(the client program exited with code 1 \(stderr: TypeError/,
    );
    expect(r.stdout).not.toMatch(/client-program +INVALID/);
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  // Two at a time (the integration project's maxConcurrency), as are the client-checks below:
  // each starts servers of its own, and no fault's timing is asserted.
  it.concurrent.each([
    [
      'true',
      /client \d's program broke at its start: the client program exited with code 0: '.* client-check --backend redis -- true' tries it alone/,
    ],
    ['yes', /client \d's program broke at its start: (an answer nobody asked for|init_ok|not JSON).*: y/],
  ])('run --client-command %s (no protocol at all): one line, exit 3, no stack', async (command, line) => {
    const r = await lockchaos([
      ...['run', '--backend', 'redis', '--time-limit', '4', '--seed', '1', '--store', store],
      ...['--client-command', command],
    ]);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    // All of stderr in the message: a failure here on a busy machine is a race to name.
    expect(last, r.stderr).toMatch(/^lockchaos run: /);
    expect(last, r.stderr).toMatch(line);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it('what a program daemonises is paused with it and ends with the run, setsid and env -i too', async () => {
    // Unique lengths, to find these sleeps and no others.
    const n = 800 + Math.floor(Math.random() * 99);
    const daemons = [`sleep ${n}.1`, `/bin/sleep ${n}.2`];
    const states: string[] = [];
    const r = await run(
      await prepareRun(
        config(`setsid ${daemons[0]} & setsid env -i ${daemons[1]} & ${BROKEN} ok`, {
          nemesis: 'client-pause',
          timeLimitS: 8,
        }),
      ),
      {
        latest: false,
        progress: () => ({
          onOp(op) {
            if (op.f !== 'start-client-pause' || op.type !== 'ok') return;
            const client = (op.value as { client: number }).client;
            // The paused client's own daemons: those in its program's cgroup.
            const cgroup = daemonPids(daemons).filter((pid) =>
              readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes(`-c${client}\n`),
            );
            states.push(cgroup.map((pid) => state(pid)).join(''));
          },
          finish() {},
          stop() {},
        }),
      },
    );
    expect(r.conditions).toEqual([]);
    expect(states.length).toBeGreaterThan(0);
    expect(new Set(states)).toEqual(new Set(['TT']));
    expect(daemonPids(daemons)).toEqual([]);
  });

  it.concurrent.each([
    ['crash', /c0: the client program exited with code 1 \(stderr: ImportError: no module named lockclient\)/],
    ['silent', /c0: no answer to init within 2000 ms/],
    ['garbage', /c0: acquire 1: not JSON: lock acquired!/],
    ['string-token', /c0: acquire 1: token "1" is not an integer/],
  ])('client-check of a program that does %s: one line, exit 3', async (how, line) => {
    // A short init timeout: the silent program is given up on in 2 s, not the default 15.
    const r = await lockchaos(['client-check', '--init-timeout', '2', '--', ...BROKEN.split(' '), how]);
    const last = r.stdout.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/^client-check: does not speak the protocol: /);
    expect(last).toMatch(line);
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.concurrent("client-check prints the extensions a library reported while it held, in the library's lease", async () => {
    // Its watchdog renews every third of the check's 5 s lease, through the 3 s hold.
    const r = await lockchaos(['client-check', '--backend', 'redis', '--', ...EXTENDING.split(' ')]);
    expect(r.stdout).toMatch(/c0's library extended its lease \d+× \(the last: 5000 ms from then\) while it held\n/);
    // Its watchdog also renews the grant the check abandons, which client-check refuses
    // (exit 3, "an acquire after a grant the harness abandoned"): a finding, not this test's.
    expect(r.stdout).toMatch(/c1 acquire after abandoning: fail/);
  });

  it.concurrent('client-check with no --backend says it assumed redis, and refuses a program never granted the lock', async () => {
    // As python-etcd3's adapter checked against Redis: four unknown acquires passed, exit 0.
    const r = await lockchaos(['client-check', '--', ...REFUSING.split(' '), 'never']);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('backend: redis (assumed: no --backend given)');
    expect(r.stdout).toMatch(/c0 acquire: unknown \(StatusCode.UNAVAILABLE: failed to connect\)/);
    expect(lines.at(-1)).toMatch(
      /^client-check: never granted the lock: 4 acquires, none ok: .*no --backend was given, so this checked against redis: give --backend NAME for the servers the program is for$/,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // one line, no stack
    expect(r.code).toBe(3);
    expect(await leftovers(r.pid)).toEqual([]);
  });

  it.concurrent("client-check shows a refused release with the program's own reason", async () => {
    const r = await lockchaos(['client-check', '--backend', 'redis', '--', ...REFUSING.split(' '), 'release']);
    expect(r.stdout).not.toMatch(/assumed/);
    expect(r.stdout).toMatch(/ {2}c0 release: fail \(lock expired before DEL: not deleted\)\n/);
    expect(r.stdout).toMatch(/client-check: speaks protocol 1\n$/);
    expect(r.code).toBe(0);
  });

  // The fixture logs in with init's `login` (it declines an init without one). Held past the
  // server's idle_session_timeout, the unguarded one crashes, quoted by its error's own line.
  it.concurrent.each([
    [
      'unguarded',
      3,
      /^client-check: .*c0: the client program exited with code 1 \(stderr: error: terminating connection due to idle-session timeout\)$/m,
    ],
    [
      'guarded',
      0,
      /^ {2}c0 holds 3 s, past the servers' 2 s session timeout\n {2}c0 release: fail \(session ended \(.*\): not held\)$/m,
    ],
  ])(
    'client-check holds past a PostgreSQL session timeout: a program %s against its end exits %i',
    async (how, code, line) => {
      const r = await lockchaos(['client-check', '--backend', 'postgres', '--', ...PG_SESSION(how).split(' ')]);
      expect(r.stdout + r.stderr).toMatch(line);
      expect(r.code).toBe(code);
      expect(await leftovers(r.pid)).toEqual([]);
    },
  );

  it.concurrent('client-check of redis-py Lock: exit 0', async () => {
    const r = await lockchaos(['client-check', '--', ...REDIS_PY.split(' ')]);
    expect(r.stdout).toMatch(/^backend: redis \(assumed: no --backend given\)\n/);
    expect(r.stdout).toMatch(/c1 acquire while c0 holds: fail \(timeout: lock busy\)/);
    // Its own loop answers init in version 1: the version the program speaks is named.
    expect(r.stdout).toMatch(/client-check: speaks protocol 1\n$/);
    expect(r.code).toBe(0);
  });
});
