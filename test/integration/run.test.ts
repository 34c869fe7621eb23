import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectFencingHoldsUnderPauses, freshStore, lockchaos, requireEngine, runAndRead } from './support.js';

const skip = await requireEngine();
const store = freshStore();

describe.skipIf(skip)('lockchaos run, end to end on real servers', () => {
  // The first two side by side (the integration project's maxConcurrency), each in a store
  // of its own (a run is read through its store's latest link): neither verdict hangs on timing.
  it.concurrent('catches Redlock without fencing under client pauses: overlapping holders and lost updates', async () => {
    const r = await runAndRead(freshStore(), [
      ...['--backend', 'redlock', '--workload', 'lock-set', '--nemesis', 'client-pause', '--fencing', 'off'],
      ...['--time-limit', '12', '--nemesis-interval', '2', '--seed', '3'],
    ]);
    expect(r.stdout).toMatch(/mutual-exclusion\s+INVALID\s+\d+ overlapping holds/);
    expect(r.stdout).toMatch(/lost-updates\s+INVALID\s+\d+ of \d+ acknowledged adds lost/);
    expect(r.code).toBe(1);
    expect(r.left).toEqual([]);
  });

  it.concurrent('keeps the data safe with fencing on redis, while showing the overlapping beliefs', async () => {
    await expectFencingHoldsUnderPauses(freshStore(), ['--backend', 'redis', '--seed', '3']);
  });

  it('writes a complete run folder and exits 0 without faults', async () => {
    const r = await runAndRead(store, [
      '--backend',
      'redis',
      '--workload',
      'mutex',
      '--time-limit',
      '4',
      '--seed',
      '11',
    ]);
    expect(r.code).toBe(0);
    const { dir, history } = r;
    expect(dir).toContain('redis-mutex-none-unfenced');
    expect(readdirSync(dir).sort()).toEqual([
      'history.jsonl',
      'junit.xml',
      'nodes',
      'report.html',
      'results.json',
      'test.json',
    ]);
    expect(readdirSync(join(dir, 'nodes')).sort()).toEqual(['redis-1.log', 'store.log']);
    expect(readFileSync(join(dir, 'nodes', 'redis-1.log'), 'utf8')).toMatch(/Ready to accept connections/);
    const config = JSON.parse(readFileSync(join(dir, 'test.json'), 'utf8'));
    expect(config).toMatchObject({ backend: 'redis', workload: 'mutex', seed: 11, ttlMs: 1000 });
    expect(history.length).toBeGreaterThan(10);
    expect(history.map((op) => op.index)).toEqual(history.map((_, i) => i));
    for (let i = 1; i < history.length; i++) expect(history[i].time).toBeGreaterThanOrEqual(history[i - 1].time);
    const results = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
    expect(results.valid).toBe(true);
    // perf, shown and not counted: every acquire of a fault-free run granted.
    const perf = results.results.find((c: { checker: string }) => c.checker === 'perf');
    expect(perf).toMatchObject({ valid: true, counts: false, details: { faultS: 0 } });
    expect(perf.details.kinds.acquire.all.availability).toBe(1);
    expect(perf.summary).toMatch(/^acquire: \d+ attempts, 100% ok, .*; no fault in effect$/);
    expect(existsSync(join(store, 'redis-mutex-none-unfenced'))).toBe(true);
    expect(r.left).toEqual([]);
  });

  it('keeps clients working while their only node is dead, and after it comes back', async () => {
    // A request to a dead node fails at once; a client loop that never yields would spin
    // and starve its own history (this once froze every client of a kill-node run).
    const r = await runAndRead(store, [
      '--backend',
      'redis',
      '--nemesis',
      'kill-node',
      '--nemesis-interval',
      '1.5',
      '--time-limit',
      '10',
      '--seed',
      '4',
    ]);
    expect(r.code).not.toBe(3);
    const { history } = r;
    const kills = history.filter((op) => op.f === 'start-kill-node' && op.type === 'ok');
    const restarts = history.filter((op) => op.f === 'stop-kill-node' && op.type === 'ok');
    expect(kills.length).toBeGreaterThan(0);
    const during = history.filter(
      (op) => op.process !== 'nemesis' && op.type === 'fail' && op.time > kills[0].time && op.time < restarts[0].time,
    );
    const after = history.filter((op) => op.f === 'acquire' && op.type === 'ok' && op.time > restarts[0].time);
    expect(during.length).toBeGreaterThan(0); // failures recorded while it was down
    expect(after.length).toBeGreaterThan(0); // and grants again once it was back
    // perf sees it too: acquires fared worse while the node was down than while it was up.
    const results = JSON.parse(readFileSync(join(r.dir, 'results.json'), 'utf8'));
    const acquire = results.results.find((c: { checker: string }) => c.checker === 'perf').details.kinds.acquire;
    expect(acquire.during.availability).toBeLessThan(acquire.outside.availability);
    expect(r.left).toEqual([]);
  });

  it("runs a backend from a user's module, and catches its non-linearizable tokens", async () => {
    const r = await runAndRead(store, [
      ...['--backend', './examples/backends/counter-token-redis.mjs', '--fencing', 'on'],
      // Clients think between cycles: at full speed the releasing client takes the lock again
      // before the others' backoff ends, and on a loaded runner one client had every grant
      // (48 tokens 1..48 of one counter: nothing forked to see).
      ...['--time-limit', '5', '--seed', '2', '--rate', '20'],
    ]);
    // Per-client counters: the same token handed out by several clients, and regressions.
    expect(r.stdout).toMatch(
      /fencing\s+INVALID\s+the token source forked: [1-9]\d* tokens granted twice; \d+ stale tokens accepted, [1-9]\d* token regressions/,
    );
    expect(r.code).toBe(1);
    expect(r.left).toEqual([]);
  });

  it('refuses a module that is not a backend, in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-mod-'));
    writeFileSync(join(dir, 'half.mjs'), 'export const backend = { name: "half", nodeSpecs: () => [] };\n');
    const r = await lockchaos(['run', '--backend', join(dir, 'half.mjs'), '--store', store]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/does not implement the backend interface: missing client\(nodes, opts\)/);
  });

  it.each([
    [['--backend', 'nope'], /unknown backend 'nope': choose one of redis, redlock/],
    [['--nemesis', 'chaos'], /unknown nemesis 'chaos' in --nemesis 'chaos': choose none or some of client-pause/],
    [['--nemesis', 'partition:nonsense'], /bad aim 'nonsense' for partition in --nemesis 'partition:nonsense'/],
    [['--backend', 'redlock', '--fencing', 'on'], /Redlock has no fencing token/],
    // mkdir -p spun at 100% CPU there, deaf to Ctrl-C.
    [
      ['--time-limit', '2', '--store', '/proc/x'],
      /cannot create the folder \/proc\/x: the folder it is in takes no new folders \(ENOENT\): give --store/,
    ],
  ])('refuses %j with one line and exit 3', async (args, message) => {
    const r = await lockchaos(['run', ...args, ...(args.includes('--store') ? [] : ['--store', store])]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });
});
