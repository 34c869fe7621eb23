/**
 * What a run leaves on a team's hosts, and how it is healed, on real sshd hosts: another
 * user's planted links and folders are never written through; a resume or a start that did
 * not take is not recorded ok, and what the heal could not undo is a condition and a line
 * on stderr; a runner killed with its ledger (a CI job's container) leaves a record on the
 * host that `cleanup --target` heals from another machine, but never a live run's; cleanup
 * exits 1 when something is left; a host whose PID 1 does not reap keeps a zombie that
 * kill-node's start must not take for the service.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockchaos, requireEngine, runAndRead } from './support.js';
import { asUser, onHost, REDIS_COMMAND, removeHosts, startHosts, type TestHost } from './target-hosts.js';

const skip = await requireEngine();
/** Where root's runs keep their files on a host. */
const PRIVATE = '/var/tmp/lockchaos-0';

/** The host's run records as a runner killed a minute ago left them (its last heartbeat then). */
const heardFromAMinuteAgo = (h: TestHost) => onHost(h, `touch -d '1 minute ago' ${PRIVATE}/lockchaos-*.run`);

describe.skipIf(skip)("a run's traces on hosts, and their heal", () => {
  let hosts: ReturnType<typeof startHosts>;
  let dir: string;
  let redis: TestHost;
  let noInit: TestHost;
  const inventory = (file: string, host: TestHost, start = '/usr/local/bin/start-service') => {
    const path = join(dir, file);
    const ssh = { user: 'root', key: hosts.key, knownHosts: hosts.knownHosts };
    writeFileSync(
      path,
      JSON.stringify({ defaults: { ssh, commands: { start } }, nodes: [{ name: 'redis-1', address: host.ip }] }),
    );
    return path;
  };
  const store = () => join(dir, 'store');
  /** A ledger of its own for each runner, as on another machine (LOCKCHAOS_STATE_DIR). */
  const ledger = () => {
    process.env.LOCKCHAOS_STATE_DIR = mkdtempSync(join(dir, 'state-'));
    return process.env.LOCKCHAOS_STATE_DIR;
  };
  /** The service's processes and their states, and the run files a host holds. */
  const states = (h: TestHost) =>
    onHost(h, 'for p in $(pgrep -x redis-server); do echo "$p:$(cut -d" " -f3 /proc/$p/stat)"; done').split('\n');
  const files = (h: TestHost) => onHost(h, `{ ls -A ${PRIVATE} 2>/dev/null; ls -A /tmp; } | grep lockchaos || true`);
  const rules = (h: TestHost) => onHost(h, 'iptables-save | grep -c lockchaos || true');
  /** The run's results.json. */
  const resultsOf = (r: { dir: string }) => JSON.parse(readFileSync(join(r.dir, 'results.json'), 'utf8'));
  /** A run that ran as configured: no condition, a verdict of the lock's (a kill may lose a Redis's key: INVALID). */
  const asConfigured = (r: { dir: string; code: number | null }) => {
    expect(resultsOf(r).conditions).toEqual([]);
    expect([0, 1]).toContain(r.code);
  };
  async function until(what: string, check: () => boolean) {
    for (let i = 0; i < 600; i++) {
      if (check()) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`never: ${what}`);
  }
  /** The id of the run that wrote its ledger entry in `state`. */
  async function runIdIn(state: string): Promise<string> {
    let id = '';
    await until('a ledger entry', () => {
      const names = (() => {
        try {
          return readdirSync(join(state, 'targets'));
        } catch {
          return [];
        }
      })();
      id = names.find((n) => n.endsWith('.json'))?.replace('.json', '') ?? '';
      return id !== '';
    });
    return id;
  }

  beforeAll(() => {
    hosts = startHosts([
      { name: 'redis-1', command: REDIS_COMMAND },
      { name: 'redis-noinit', command: REDIS_COMMAND, init: false },
    ]);
    [redis, noInit] = hosts.hosts as [TestHost, TestHost];
    dir = mkdtempSync(join(tmpdir(), 'lcx-heal-'));
    for (const h of hosts.hosts) onHost(h, 'echo original > /etc/victim');
  });
  afterAll(() => {
    removeHosts(hosts);
    delete process.env.LOCKCHAOS_STATE_DIR;
  });

  it("writes nothing through another user's planted links, and refuses a folder another user made", async () => {
    const target = inventory('redis.yaml', redis);
    // Planted where today's files would go, once the run's id is known (its ledger names it).
    ledger();
    const state = process.env.LOCKCHAOS_STATE_DIR as string;
    const run = runAndRead(store(), [
      ...['--backend', 'redis', '--target', target, '--nemesis', 'pause-node,kill-node'],
      ...['--nemesis-interval', '1', '--time-limit', '8', '--seed', '3'],
    ]);
    const id = await runIdIn(state);
    asUser(
      redis,
      'nobody',
      `ln -s /etc/victim /tmp/lockchaos-${id}.stopped; ln -s /etc/victim-k /tmp/lockchaos-${id}.killed`,
    );
    const r = await run;
    expect(r.history.some((o) => o.f === 'start-pause-node' && o.type === 'ok')).toBe(true);
    expect(r.history.some((o) => o.f === 'start-kill-node' && o.type === 'ok')).toBe(true);
    expect(onHost(redis, 'cat /etc/victim')).toBe('original');
    expect(onHost(redis, 'ls /etc/victim-k 2>&1 || true')).toMatch(/No such file/);
    asConfigured(r);
    onHost(redis, `rm -f /tmp/lockchaos-${id}.*`);
    expect(files(redis)).toBe('');

    // The private folder made by another user before any run: refused at the start, in one line.
    onHost(redis, `rm -rf ${PRIVATE}`);
    asUser(redis, 'nobody', `mkdir -m 700 ${PRIVATE} && ln -s /etc/victim ${PRIVATE}/planted`);
    const refused = await lockchaos([
      ...['run', '--backend', 'redis', '--target', target, '--nemesis', 'pause-node'],
      ...['--time-limit', '3', '--store', store()],
    ]);
    expect(refused.stderr).toMatch(
      new RegExp(`redis-1 ${redis.ip}:6379 .*refused: ${PRIVATE} is not a folder of root with mode 0700`),
    );
    expect(refused.code).toBe(3);
    expect(states(redis).every((s) => s.endsWith(':S') || s.endsWith(':R'))).toBe(true);
    expect(onHost(redis, 'cat /etc/victim')).toBe('original');
    onHost(redis, `rm -rf ${PRIVATE}`);
  });

  it('a resume that did not take is not recorded ok; what the heal left is a condition and a line on stderr', async () => {
    const target = inventory('redis.yaml', redis);
    ledger();
    // One pause (the next would start past the time limit), its record lost while it holds.
    const run = runAndRead(store(), [
      ...['--backend', 'redis', '--target', target, '--nemesis', 'pause-node'],
      ...['--nemesis-interval', '4', '--time-limit', '6', '--seed', '5'],
    ]);
    await until('a stopped process', () => states(redis).some((s) => s.endsWith(':T')));
    onHost(redis, `rm -f ${PRIVATE}/*.stopped /tmp/lockchaos-*.stopped`);
    const r = await run;
    const stops = r.history.filter((o) => o.f === 'stop-pause-node' && o.type !== 'invoke');
    expect(stops.map((o) => o.type)).toEqual(['info']);
    expect(String(stops[0]?.error)).toMatch(/still stopped \(state T\) after SIGCONT: pid \d+/);
    const results = resultsOf(r);
    expect(results.valid).not.toBe(true);
    const notHealed = results.conditions.find((c: { kind: string }) => c.kind === 'not-healed');
    expect(notHealed?.message).toMatch(/redis-1 .*left: stopped \(state T\): pid \d+/);
    expect(r.stderr).toMatch(
      new RegExp(`not healed: redis-1 ${redis.ip}:6379 \\(ssh root@${redis.ip}:22\\): left: stopped \\(state T\\)`),
    );
    expect(r.stdout).toMatch(/not healed after the run: redis-1/);
    expect(r.code).toBe(3);
    // Resumed by hand: the next cleanup heals what the run's entry still names.
    onHost(redis, 'pkill -CONT -x redis-server');
    const cleanup = await lockchaos(['cleanup']);
    expect(cleanup.stdout).toMatch(/1 targets healed/);
    expect(files(redis)).toBe('');
  });

  it("cleanup --target heals a killed runner's host with its ledger gone, but not a run still going", async () => {
    const target = inventory('redis.yaml', redis);
    const state = ledger();
    let pid = 0;
    const run = lockchaos(
      [
        ...['run', '--backend', 'redis', '--target', target, '--nemesis', 'pause-node', '--store', store()],
        ...['--nemesis-interval', '1', '--time-limit', '60', '--seed', '6'],
      ],
      { onSpawn: (p) => (pid = p), until: 'exit' },
    );
    const id = await runIdIn(state);
    await until("the run's record on the host", () => files(redis).includes(`lockchaos-${id}.run`));
    // Another machine (its own empty ledger) while the run goes: the run is this machine's, alive.
    ledger();
    const live = await lockchaos(['cleanup', '--target', target]);
    expect(live.stdout).toMatch(/^removed \d+ containers, .* 0 targets healed/);
    expect(live.stderr).toMatch(new RegExp(`left alone: run ${id} on redis-1 .*still going`));
    expect(live.code).toBe(0);
    expect(files(redis)).toContain(`lockchaos-${id}.run`);

    await until('a stopped process', () => states(redis).some((s) => s.endsWith(':T')));
    process.kill(pid, 'SIGKILL');
    await run;
    // As a CI job's container would have left it: its runner on another machine, its ledger gone.
    onHost(redis, `sed -i 's/^lc_owner=.*/lc_owner=ci-job-7f3a:41:9001/' ${PRIVATE}/lockchaos-${id}.run`);
    // Killed a minute ago: past STALE_S, so cleanup heals it at once (the wait for a record
    // heard from lately is judgeRun's, unit-tested in heal.test.ts).
    heardFromAMinuteAgo(redis);
    ledger();
    const healed = await lockchaos(['cleanup', '--target', target]);
    expect(healed.stdout).toMatch(/^removed \d+ containers, .* 1 targets healed/);
    expect(healed.code).toBe(0);
    expect(states(redis).some((s) => s.endsWith(':T'))).toBe(false);
    expect(files(redis)).toBe('');
    expect(rules(redis)).toBe('0');
    // The killed runner's own ledger entry: healed already, and forgotten.
    process.env.LOCKCHAOS_STATE_DIR = state;
    expect((await lockchaos(['cleanup'])).code).toBe(0);
  });

  it('kill-node on a host whose PID 1 does not reap: the zombie is not the service, and the start runs', async () => {
    const target = inventory('noinit.yaml', noInit);
    ledger();
    const r = await runAndRead(store(), [
      ...['--backend', 'redis', '--target', target, '--nemesis', 'kill-node'],
      ...['--nemesis-interval', '2', '--time-limit', '8', '--seed', '2'],
    ]);
    expect(r.history.filter((o) => o.f === 'stop-kill-node' && o.type === 'ok').length).toBeGreaterThan(0);
    expect(r.history.filter((o) => o.f === 'stop-kill-node' && o.type === 'info')).toEqual([]);
    // The zombies of the kills stay (nothing reaps them); the service runs beside them.
    const after = states(noInit);
    expect(after.some((s) => s.endsWith(':Z'))).toBe(true);
    expect(after.some((s) => /:[SR]$/.test(s))).toBe(true);
    asConfigured(r);
  });

  it('a node left dead is said on stderr and in the verdict; cleanup then exits 1 naming what is left', async () => {
    // A start command that fails: the node stays dead after its kill.
    const target = inventory('dead.yaml', noInit, 'false');
    const state = ledger();
    const r = await runAndRead(store(), [
      ...['--backend', 'redis', '--target', target, '--nemesis', 'kill-node'],
      ...['--nemesis-interval', '2', '--time-limit', '5', '--seed', '2'],
    ]);
    const results = resultsOf(r);
    const kinds = results.conditions.map((c: { kind: string }) => c.kind);
    expect(kinds).toContain('node-lost');
    expect(kinds).toContain('not-healed');
    expect(r.stderr).toMatch(/lock node redis-1 is down after the run .*kill-node took it down/);
    expect(r.stderr).toMatch(/not healed: redis-1 .*left: the service is not running/);
    // A start that failed is said, not waited on for 10 s.
    expect(r.stderr).toMatch(/its start command exited with code 1: false/);
    expect(r.code).toBe(3);

    // What is left is named, and the exit is 1: from the run's own ledger, and from the host.
    const fromLedger = await lockchaos(['cleanup']);
    expect(fromLedger.stdout).toMatch(/^removed \d+ containers, \d+ networks, .* 0 targets healed/);
    expect(fromLedger.stderr).toMatch(/not healed .*redis-1 .*left: the service is not running/);
    expect(fromLedger.code).toBe(1);
    ledger();
    heardFromAMinuteAgo(noInit);
    const fromHost = await lockchaos(['cleanup', '--target', target]);
    expect(fromHost.stderr).toMatch(/not healed .*run [0-9a-f]+ on redis-1 .*left: the service is not running/);
    expect(fromHost.code).toBe(1);

    // Once the service can start (the inventory's command fixed), the record's commands heal it.
    onHost(noInit, `sed -i "s|^lc_start=.*|lc_start=/usr/local/bin/start-service|" ${PRIVATE}/lockchaos-*.run`);
    heardFromAMinuteAgo(noInit);
    const fixed = await lockchaos(['cleanup', '--target', target]);
    expect(fixed.stdout).toMatch(/1 targets healed/);
    expect(fixed.code).toBe(0);
    expect(states(noInit).some((s) => /:[SR]$/.test(s))).toBe(true);
    process.env.LOCKCHAOS_STATE_DIR = state;
    expect((await lockchaos(['cleanup'])).code).toBe(0);
  });
});
