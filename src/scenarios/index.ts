/**
 * Scenario presets: the published failure stories, each a ready configuration with its
 * source and the outcome expected with and without fencing. `lockchaos scenarios` lists
 * them; `lockchaos run --scenario NAME [--fencing on|off]` runs one.
 */
import { join } from 'node:path';
import { BACKENDS } from '../backends/index.js';
import { DEFAULTS, type TestConfig } from '../run-data/parameters.js';
import { nearestOr } from '../util/did-you-mean.js';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';

/** What a scenario should end with: a verdict, or an error (e.g. fencing on Redlock). */
export type Expected = 'valid' | 'invalid' | 'error';

export interface Scenario {
  name: string;
  /** What it reproduces, in a sentence or two. */
  description: string;
  /** Where the story was published. */
  source: string;
  expected: { unfenced: Expected; fenced: Expected };
  /** The configuration it runs (fencing and seed come from the command line). */
  config: Partial<Omit<TestConfig, 'fencing' | 'seed' | 'storeDir'>>;
  /** Other backends the same story applies to (`--backend` may pick one). */
  backends?: string[];
  /**
   * The least share (0..1) of acquires that must be ok outside fault windows: a preset
   * without faults expects a working lock, not only a safe one.
   */
  availability?: number;
}

const KLEPPMANN = 'Martin Kleppmann, "How to do distributed locking" (2016)';
const DISPATCH = 'the dispatch lockchaos grew from, Part 3: its Rust FencedLock (issue 26)';

/** What a lock without a fencing token gives: fencing has nothing to fence with. */
const NO_TOKEN = { unfenced: 'invalid', fenced: 'invalid' } as const;

/**
 * A shipped example client (examples/clients/, `adapter` its file there) under the GC pause
 * as gc-pause runs it: a client pause outlives the 1 s lease. /usr/bin/python3: Debian's
 * python3-* libraries are importable by the system Python, not by a pyenv one on PATH.
 */
function exampleUnderPause(
  name: string,
  description: string,
  expected: Scenario['expected'],
  source: string,
  [backend, adapter]: [string, string],
  more: Scenario['config'] = {},
): Scenario {
  const program = adapter.endsWith('.py') ? '/usr/bin/python3' : 'node';
  return {
    name,
    description,
    source: `${source}; examples/clients/${adapter.split('/')[0]}`,
    expected,
    config: {
      backend,
      workload: 'lock-set',
      nemesis: 'client-pause',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
      clientCommand: `${program} ${join(packageRoot, 'examples/clients', adapter)}`,
      ...more,
    },
  };
}

const JEPSEN_ETCD = 'Jepsen, "etcd 3.4.3" (2020), lock safety under process pauses';

/**
 * Redlock during a clients-majorities split, the shared master's real clock drifting at
 * 1 + ρ from a bare majority's grant (for a TTL at least). The 2 s hold leaves a 3 s
 * lease's validity room for a slow acquire on a loaded machine (elapsed < 0.97 s); the
 * drift expires the shared key 3000 − 3000/(1 + ρ) ms early, inside the hold once
 * ρ > 3000/2000 − 1 = 0.5; the client's own 1% drift factor covers none of that. For the
 * other group to see it, the gap between the key's end and the hold's, 2000 − 3000/(1 + ρ),
 * must outlast one of its retries (each waits out the unreachable masters twice, 300 ms,
 * and a backoff of up to 125 ms: about 725 ms), or the retries, all in step, can straddle
 * it every time: ρ > 3000/1275 − 1 ≈ 1.35. At ρ = 1 the gap was 500 ms and seed 1 missed
 * all seven of its drifts that way.
 */
function driftingBridge(name: string, rate: number, description: string, unfenced: 'invalid' | 'valid'): Scenario {
  return {
    name,
    description,
    source: `${KLEPPMANN}: clock drift; the Redlock description's drift factor`,
    expected: { unfenced, fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: `partition:clients-majorities,node-clock:bridge:rate=${rate}`,
      ttlMs: 3000,
      holdMs: 2000,
      rate: 2,
      nemesisIntervalS: 2,
      timeLimitS: 60,
    },
  };
}

/**
 * A leader whose real clock moves, on etcd or ZooKeeper, where the leader keeps the leases
 * (etcd's lessor; ZooKeeper's session tracker) on its monotonic clock, which the warp moves
 * too. Measured, not assumed: a jump past the lease while a client holds (kept in its hold)
 * expires the holder's lease at once; a drift eats a lease only where the clock runs fast
 * enough that a lease, renewed every third of it (etcd's keepalives; ZooKeeper's pings),
 * lapses between two renewals: TTL/(1 + ρ) < TTL/3, ρ > 2. The drifts hold 600 ms, longer
 * than a 2 s lease lasts by true time at ρ = 3 (500 ms), so that a lapse falls in a hold.
 */
function leaderClock(
  name: string,
  backend: 'etcd' | 'zookeeper',
  mode: string,
  description: string,
  expected: Scenario['expected'],
  holdMs = 100,
): Scenario {
  return {
    name,
    description,
    source: `${KLEPPMANN}, on timing assumptions; ${backend === 'etcd' ? JEPSEN_ETCD : "ZooKeeper Programmer's Guide, sessions"}`,
    expected,
    config: {
      backend,
      workload: 'lock-set',
      nemesis: `node-clock:leader:${mode}`,
      ttlMs: 2000,
      holdMs,
      nemesisIntervalS: 3,
    },
  };
}

const list: Scenario[] = [
  {
    name: 'gc-pause',
    description:
      'a client pauses (SIGSTOP, like a GC pause) after acquiring, longer than its lease; another client takes the lock and both write',
    source: KLEPPMANN,
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'redis',
      workload: 'lock-set',
      nemesis: 'client-pause',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
    },
    backends: ['redis', 'etcd', 'zookeeper'],
  },
  {
    name: 'redlock-gc-pause',
    description:
      'the same GC pause against Redlock over 5 masters: a majority does not help, and there is no token to fence with',
    source: KLEPPMANN,
    expected: { unfenced: 'invalid', fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: 'client-pause',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'redlock-pause-in-acquire',
    description:
      "a client pauses after its SETs were answered and before it counts the votes: Redlock's elapsed-time check must refuse the lock",
    source: 'Antirez, "Is Redlock safe?" (2016), the reply to Kleppmann',
    expected: { unfenced: 'valid', fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: 'client-pause:in-acquire',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'redlock-client-clock',
    description:
      "the same stop between the votes and the elapsed-time check, but the client's own clock steps back by most of the stop (NTP during a GC pause): the check passes, and the client holds a lock whose keys expired",
    source: KLEPPMANN,
    expected: { unfenced: 'invalid', fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: 'client-clock:backward',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'redlock-clock-jump',
    description:
      "clients split into two groups that each reach a different majority of the 5 masters, sharing one; that shared master's clock jumps forward, its key expires, and the other group gets its own majority",
    source: KLEPPMANN,
    expected: { unfenced: 'invalid', fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: 'partition:clients-majorities,clock:bridge',
      // A long hold gives the other group time to win the expired bridge while one holds;
      // a modest rate keeps one client from taking the lock again at once.
      ttlMs: 3000,
      holdMs: 2500,
      rate: 2,
      nemesisIntervalS: 2,
      // A split catches two majorities in about half its chances: a minute gives it more.
      timeLimitS: 60,
    },
  },
  {
    name: 'redlock-real-clock-bridge',
    description:
      "as redlock-clock-jump, with the shared master's real clock: its server's vDSO clocks warped by ptrace jump past the lease while a client holds a bare majority, the key expires by that clock, and the other group gets its own majority",
    source: `${KLEPPMANN}: a Redis node whose clock jumps forward`,
    expected: { unfenced: 'invalid', fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: 'partition:clients-majorities,node-clock:bridge',
      ttlMs: 3000,
      holdMs: 2500,
      rate: 2,
      nemesisIntervalS: 2,
      timeLimitS: 60,
    },
  },
  driftingBridge(
    'redlock-drift-bridge',
    2,
    "the shared master's real clock drifts at 1 + ρ with ρ = 2, two hundred times the 1% drift factor the Redlock client subtracts from its validity: the key that completes a bare majority expires 2 s early by that clock, a second inside a 2 s hold of a 3 s lease, long enough for the other group's retries to get their own majority",
    'invalid',
  ),
  driftingBridge(
    'redlock-drift-within-bound',
    0.005,
    "as redlock-drift-bridge, with the shared master drifting at ρ = 0.005, half the client's 1% drift factor: the key outlives every 2 s hold by its clock too, and no two holders overlap",
    'valid',
  ),
  leaderClock(
    'etcd-leader-clock-jump',
    'etcd',
    'while-held',
    "the etcd leader's real clock (its vDSO clocks, warped by ptrace) jumps past the 2 s lease while a client holds the lock, kept in its hold within its lease: the leader's lessor, on its monotonic clock, revokes the holder's lease at once, its key goes, and a waiter creates it",
    { unfenced: 'invalid', fenced: 'valid' },
  ),
  leaderClock(
    'etcd-leader-drift',
    'etcd',
    'rate=0.5',
    "the etcd leader's real clock runs at 1.5 times true time: each lease, kept alive every third of its 2 s, is renewed before the fast clock runs it out (it would need ρ > 2), and no two holders overlap through 600 ms holds",
    { unfenced: 'valid', fenced: 'valid' },
    600,
  ),
  leaderClock(
    'etcd-leader-drift-past-renewal',
    'etcd',
    'rate=3',
    "the etcd leader's real clock runs at 4 times true time: a 2 s lease lasts 0.5 s by true time, less than the 0.67 s between its keepalives, so leases lapse under 600 ms holds whose holders still believe",
    { unfenced: 'invalid', fenced: 'valid' },
    600,
  ),
  leaderClock(
    'zk-leader-clock-jump',
    'zookeeper',
    'while-held',
    "the ZooKeeper leader's real clock (the JVM's vDSO clocks, warped by ptrace) jumps past the 2 s session timeout while a client holds the lock, kept in its hold: the leader's session tracker expires every session whose deadline the jump passed, the holder's and the waiters' alike; the waiters come back with new sessions and one takes the lock",
    { unfenced: 'invalid', fenced: 'valid' },
  ),
  leaderClock(
    'zk-leader-drift',
    'zookeeper',
    'rate=0.5',
    "the ZooKeeper leader's real clock runs at 1.5 times true time: the clients' pings, a third of the 2 s session timeout apart, touch each session before the fast clock expires it, and no two holders overlap through 600 ms holds",
    { unfenced: 'valid', fenced: 'valid' },
    600,
  ),
  {
    name: 'redlock-client-slow-clock',
    description:
      "a Redlock client's own real clock (its worker's and its program's vDSO clocks, by ptrace) runs at 0.7 times true time while it holds: its 2.7 s hold of a 3 s lease lasts 3.9 s by true time, the keys expire on every master, and another client gets a majority while it still holds; --client-command runs the same on a library in any language",
    source: `${KLEPPMANN}: a client whose clock runs slow`,
    expected: { unfenced: 'invalid', fenced: 'error' },
    config: {
      backend: 'redlock',
      workload: 'lock-set',
      nemesis: 'client-clock-warp:holder:rate=-0.3',
      ttlMs: 3000,
      holdMs: 2700,
      rate: 2,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'clock-strobe',
    description:
      "the Redis node's clock strobes, a lease ahead and back every 50-250 ms: a flip ahead expires the holder's key early, and another client takes the lock",
    source: `${KLEPPMANN}, on timing assumptions; Jepsen's clock strobe nemesis`,
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'redis',
      workload: 'lock-set',
      nemesis: 'clock:one:strobe',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 3,
    },
  },
  {
    name: 'redis-real-clock-jump',
    description:
      "the Redis server's own clock jumps forward past the lease while a client holds the lock (its vDSO clocks warped by ptrace, not its TTLs shifted): the holder's key expires early by the server's clock, and another client takes the lock while the holder, kept in its hold within its own lease, still holds it",
    source: `${KLEPPMANN}: a Redis node whose clock jumps forward`,
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'redis',
      workload: 'lock-set',
      // Aimed at a hold: a jump between two holds expires no one's key (a 100 ms hold of a
      // 1 s lease). The holder is kept (stopped) for at most 0.8 of its lease from its
      // grant, so by its own clock it still holds when the other client takes the lock.
      nemesis: 'node-clock:one:while-held',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'redis-restart-amnesia',
    description:
      'the Redis master is killed and restarts empty while the lock is held: the lock and the token counter are forgotten; a second client acquires, and tokens start again from 1',
    source:
      'Redis documentation, "Distributed Locks with Redis": safety with restarts needs fsync=always or delayed restarts',
    expected: { unfenced: 'invalid', fenced: 'invalid' },
    config: {
      backend: 'redis',
      workload: 'lock-set',
      // The node goes down only while a client holds the lock, and that holder is kept in
      // its hold (stopped, within its lease) until the node is back: the node forgets a
      // lock that is held however long this machine takes to restart a container.
      nemesis: 'kill-node:one:while-held',
      loseData: true,
      ttlMs: 15_000,
      holdMs: 2000,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'delayed-write',
    description:
      "one client's path to the store is delayed by about a TTL: its write arrives after its lease ran out and another client wrote",
    source: KLEPPMANN,
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'redis',
      workload: 'lock-set',
      nemesis: 'latency:store',
      ttlMs: 1000,
      holdMs: 50,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'etcd-lease-expiry',
    description:
      'a contended etcd lock with a 2 s lease while the leader is paused and clients pause: leases expire under holders who still believe',
    source: JEPSEN_ETCD,
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'etcd',
      workload: 'lock-set',
      nemesis: 'pause-node:leader,client-pause',
      ttlMs: 2000,
      holdMs: 100,
      nemesisIntervalS: 3,
      // A new leader renews every lease, so a client pause that spans an election outlives
      // nothing; in 30 s all of a seed's few pauses sometimes do. A minute gives more chances.
      timeLimitS: 60,
    },
  },
  {
    name: 'zk-session-expiry',
    description:
      'a ZooKeeper client pauses longer than its session timeout: its ephemeral node goes, the next waiter holds',
    source: 'Apache Curator tech note 10; Kleppmann (2016)',
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'zookeeper',
      workload: 'lock-set',
      nemesis: 'client-pause',
      ttlMs: 2000,
      holdMs: 100,
      nemesisIntervalS: 3,
    },
  },
  {
    name: 'sentinel-split-brain',
    description:
      'the Redis primary is cut from its replicas and Sentinels while clients still reach it; the Sentinels promote a replica, and both primaries grant the lock. The token counter forks with them, so fencing does not save the data either',
    source: 'Jepsen, "Redis" (2013): Sentinel failover and asynchronous replication',
    expected: { unfenced: 'invalid', fenced: 'invalid' },
    config: {
      backend: 'redis-sentinel',
      workload: 'lock-set',
      nemesis: 'partition:isolate-leader',
      ttlMs: 1000,
      holdMs: 100,
      // Cuts of 2.5-7.5 s: most outlast the Sentinels' failover (1 s down, then the vote).
      nemesisIntervalS: 5,
    },
  },
  {
    name: 'pg-session-loss',
    description:
      "a PostgreSQL advisory lock holder pauses longer than the server's idle session timeout: the server ends its session and frees the lock, another client takes it, and the first wakes and writes",
    source: 'PostgreSQL documentation, "Advisory Locks" and idle_session_timeout; Kleppmann (2016)',
    expected: { unfenced: 'invalid', fenced: 'valid' },
    config: {
      backend: 'postgres',
      workload: 'lock-set',
      nemesis: 'client-pause',
      ttlMs: 1000,
      holdMs: 100,
      nemesisIntervalS: 2,
    },
  },
  {
    name: 'short-ttl-no-faults',
    description: 'no faults at all, but the hold outlasts the TTL a little: leases run out under working clients',
    source: 'lockchaos: a misconfiguration, not a fault',
    expected: { unfenced: 'invalid', fenced: 'valid' },
    // The hold outlasts the lease by 30 ms. Longer, and another client has nearly always
    // taken the lock before the holder writes: fenced, too few writes are accepted to judge
    // (600 ms: 1 of 61, unknown). As long, and the stale window is the write's round trip
    // alone: unfenced, some 30 s runs have no overlap at all. The waits of five clients for
    // a lock held half a second each pass the default 5 s acquire timeout now and then.
    config: {
      backend: 'redis',
      workload: 'lock-set',
      nemesis: 'none',
      ttlMs: 500,
      holdMs: 530,
      acquireTimeoutMs: 10_000,
    },
    availability: 0.9,
  },
  exampleUnderPause(
    'node-redlock-gc-pause',
    "npm's redlock 4.2.0 (ioredis) over 5 masters, driven as a client program: a client pauses longer than its lease and another takes the lock; redlock has no token",
    { unfenced: 'invalid', fenced: 'error' },
    KLEPPMANN,
    ['redlock', 'node-redlock/client.mjs'],
  ),
  exampleUnderPause(
    'redis-semaphore-gc-pause',
    "npm's redis-semaphore 5.8.0 Mutex with its default refresh: the pause stops the refresh timer too, the key expires, another client takes it; no token",
    NO_TOKEN,
    KLEPPMANN,
    ['redis', 'redis-semaphore/client.mjs'],
  ),
  exampleUnderPause(
    'redis-py-lock-gc-pause',
    "redis-py's Lock (Debian python3-redis): a client pauses longer than its lease, another takes the lock; no token",
    NO_TOKEN,
    KLEPPMANN,
    ['redis', 'redis-py-lock/client.py'],
  ),
  exampleUnderPause(
    'kazoo-lock-gc-pause',
    "kazoo's Lock (Debian python3-kazoo) with its session timeout the TTL: a paused holder's session expires, its znode goes, the next waiter holds; the znode's sequence number fences",
    { unfenced: 'invalid', fenced: 'valid' },
    'Apache Curator tech note 10',
    ['zookeeper', 'kazoo-lock/client.py'],
    // A 2 s session, and every pause 1.5 times it (3 s): aimed at what the story needs, a
    // session that expires under its holder. Drawn from 0.8-2x, a run of 15 s drew three
    // pauses of 0.9x in 1 seed of 11 (seeds 111-120): the sessions lived, nothing to catch.
    { ttlMs: 2000, nemesisIntervalS: 3, pauseTtl: 1.5 },
  ),
  exampleUnderPause(
    'etcd3-lock-gc-pause',
    "python-etcd3's Lock (Debian python3-etcd3) with its lease the TTL, never refreshed: a paused holder's lease expires, its key goes, the next waiter creates it; the key's create revision fences",
    { unfenced: 'invalid', fenced: 'valid' },
    JEPSEN_ETCD,
    ['etcd', 'etcd3-lock/client.py'],
    // As kazoo's: a 2 s lease, and every pause 1.5 times it, a lease that expires under its holder.
    { ttlMs: 2000, nemesisIntervalS: 3, pauseTtl: 1.5 },
  ),
  exampleUnderPause(
    'seed-fenced-lock',
    "the dispatch's FencedLock, ported: a counter from 0 in every client and no server, so every client holds at once and each token is handed out by every client",
    { unfenced: 'invalid', fenced: 'invalid' },
    DISPATCH,
    ['redis', 'seed-fenced-lock/client.py'],
  ),
  exampleUnderPause(
    'seed-fenced-lock-fixed',
    'the same FencedLock with a real lock and its token from Redis (SET NX and INCR in one script): a paused holder still outlives its lease, but its stale token is refused',
    { unfenced: 'invalid', fenced: 'valid' },
    DISPATCH,
    ['redis', 'seed-fenced-lock-fixed/client.py'],
  ),
  {
    name: 'control',
    description: 'no faults, holds far shorter than the TTL: a correct configuration that must never raise an alarm',
    source: 'lockchaos: the false-alarm check',
    expected: { unfenced: 'valid', fenced: 'valid' },
    config: { backend: 'redis', workload: 'lock-set', nemesis: 'none', ttlMs: 2000, holdMs: 20 },
    // Every built-in backend: a false alarm on any of them is lockchaos's.
    backends: Object.keys(BACKENDS),
    availability: 0.9,
  },
];

export const SCENARIOS: Record<string, Scenario> = Object.fromEntries(list.map((s) => [s.name, s]));

export function scenarioByName(name: string): Scenario | undefined {
  return Object.hasOwn(SCENARIOS, name) ? SCENARIOS[name] : undefined;
}

/** The backends and the workload a scenario's story runs on: its own backend first, then the others it names. */
export function scenarioRunsOn(s: Scenario): { backend: string[]; workload: string[] } {
  const own = s.config.backend ?? DEFAULTS.backend;
  return {
    backend: [own, ...(s.backends ?? []).filter((b) => b !== own)],
    workload: [s.config.workload ?? DEFAULTS.workload],
  };
}

/** A run's parameters, but what names one run (its name and seed). */
export type RunParameters = Omit<TestConfig, 'name' | 'seed'>;

/**
 * The parameters of a run of scenario `name` (undefined: of no scenario), in layers, each
 * over the ones before: DEFAULTS, `under` (a campaign's defaults), the scenario's own
 * configuration, `over` (a schedule's parameters and the flags given; a campaign entry's
 * options and axes). The scenario is recorded in them; the name and seed are the caller's.
 * Whether `over` may change the scenario's backend or workload is the caller's to check
 * (scenarioRunsOn), in its own words. An unknown name is a UserError.
 */
export function resolveScenario(
  name: string | undefined,
  layers: { under?: Partial<RunParameters>; over?: Partial<RunParameters> } = {},
): { scenario?: Scenario; config: RunParameters } {
  const scenario = name === undefined ? undefined : scenarioByName(name);
  if (name !== undefined && !scenario) {
    throw new UserError(
      `unknown scenario '${name}'${nearestOr(name, Object.keys(SCENARIOS), `choose one of ${Object.keys(SCENARIOS).join(', ')} (lockchaos scenarios)`)}`,
    );
  }
  const { name: _name, ...preset } = scenario?.config ?? {};
  const config: RunParameters = { ...DEFAULTS, ...layers.under, ...preset, ...layers.over };
  if (scenario) config.scenario = scenario.name;
  return scenario ? { scenario, config } : { config };
}
