/**
 * A run's phases and its teardown without Docker: the engine, the cluster, the workers, the
 * faults and the checkers are fakes that say when they are called. The order is the one the
 * runner kept in one try/finally before its phases were named: heal, give the workload slot
 * back, kill the workers, remove their cgroups, close the proxies, let the target go, remove
 * the containers; also when the run is cut short at its start.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const fake = vi.hoisted(() => ({
  calls: [] as string[],
  /** What goes wrong, and where. */
  trouble: undefined as undefined | 'ctrl-c at start' | 'proxies fail' | 'ctrl-c in workload' | 'overlap',
  ctrlC: () => {},
}));
const called = (what: string) => {
  fake.calls.push(what);
};

vi.mock('../cluster/docker-engine.js', async (original) => ({
  ...(await original<object>()),
  ensureEngine: async () => called('engine'),
  ensureImage: async () => called('image'),
}));
vi.mock('../cluster/reclaim.js', async (original) => ({
  ...(await original<object>()),
  reclaimOrphans: async () => ({
    containers: [],
    networks: [],
    inUse: [],
    workers: 0,
    cgroups: 0,
    clocks: 0,
    clockProblems: [],
  }),
  removeRunCgroups: async () => called('remove cgroups'),
}));
vi.mock('../cluster/remove-resources.js', () => ({
  removeResources: async () => called('remove containers'),
}));
vi.mock('../target/heal.js', () => ({ reclaimTargets: async () => ({ runs: 0, problems: [] }) }));
vi.mock('../cluster/cluster.js', async (original) => ({
  ...(await original<object>()),
  startCluster: async (_runId: string, _specs: unknown, signal?: AbortSignal) => {
    called('start cluster');
    if (fake.trouble === 'ctrl-c at start') {
      fake.ctrlC();
      throw signal?.reason;
    }
    const node = { name: 'redis-1', role: 'node', ip: '10.0.0.2', port: 6379, state: async () => ({ running: true }) };
    const store = { name: 'store', role: 'store', ip: '10.0.0.3', port: 6379 };
    return {
      nodes: [node, store],
      node: (name: string) => (name === 'store' ? store : node),
      collectLogs: async () => ({}),
      close: async () => called('let the target go'),
    };
  },
}));
vi.mock('./faults.js', () => ({
  RunFaults: class {
    async openProxies() {
      called('open proxies');
      if (fake.trouble === 'proxies fail') throw new Error('port taken');
    }
    addressesFor() {
      return { nodes: [], store: { name: 'store', ip: '127.0.0.1', port: 1 } };
    }
    run(opts: { signal: AbortSignal }) {
      called('nemesis');
      return new Promise<void>((resolve) => {
        if (opts.signal.aborted) resolve();
        opts.signal.addEventListener('abort', () => resolve());
      });
    }
    schedule() {
      return [];
    }
    wireReached() {
      return {};
    }
    async healAll() {
      called('heal');
    }
    async close() {
      called('close proxies');
    }
  },
}));
vi.mock('./worker-pool.js', () => ({
  WorkerPool: class {
    errors = [];
    lost = [];
    exitedOpen = [];
    brokenPrograms = [];
    pointsCapped = [];
    stalls = [];
    constructor(
      _runId: string,
      _count: number,
      private readonly record: (op: object) => void,
    ) {
      called('fork workers');
    }
    preload() {}
    start() {}
    async ready() {
      called('clients connected');
    }
    go() {
      called('go');
      if (fake.trouble === 'ctrl-c in workload') setTimeout(fake.ctrlC, 20);
      // Two clients hold the lock at once: the first release confirms the overlap.
      if (fake.trouble === 'overlap') {
        setTimeout(() => {
          for (const [process, type, f, time] of [
            [0, 'invoke', 'acquire', 1],
            [0, 'ok', 'acquire', 2],
            [1, 'invoke', 'acquire', 3],
            [1, 'ok', 'acquire', 4],
            [0, 'invoke', 'release', 5],
          ] as const) {
            this.record({ process, type, f, key: 'lockchaos:lock', time });
          }
        }, 20);
      }
    }
    async stop() {
      called('stop clients');
    }
    pointsReached() {
      return {};
    }
    maxProcess() {
      return 1;
    }
    kill() {
      called('kill workers');
    }
  },
}));
vi.mock('./node-watch.js', () => ({ NodeWatch: { begin: async () => ({ lost: async () => [] }) } }));
vi.mock('../../workloads/checks.js', async (original) => ({
  ...(await original<object>()),
  interruptibleCheckRun: async () => {
    called('check');
    return [];
  },
}));

const { DEFAULTS } = await import('../run-data/config.js');
const { prepareRun } = await import('../run-data/prepare.js');
const { run } = await import('./run.js');

beforeEach(() => {
  fake.calls.length = 0;
  fake.trouble = undefined;
});

async function runWith(trouble: typeof fake.trouble, timeLimitS = 0.2) {
  fake.trouble = trouble;
  const ctrlC = new AbortController();
  fake.ctrlC = () => ctrlC.abort('SIGINT');
  const resolved = await prepareRun({
    ...DEFAULTS,
    backend: 'redis',
    workload: 'mutex',
    name: '',
    storeDir: mkdtempSync(join(tmpdir(), 'lockchaos-run-')),
    timeLimitS,
    fencing: false,
    stopOnViolation: true,
    seed: 1,
  });
  return run(resolved, {
    signal: ctrlC.signal,
    latest: false,
    stopGraceMs: 100,
    progress: () => ({ onOp: () => {}, finish: () => called('progress done'), stop: () => called('progress stops') }),
    workloadSlot: async () => {
      called('take slot');
      return () => called('give slot back');
    },
  });
}

const TEARDOWN = [
  'progress stops',
  'heal',
  'give slot back',
  'kill workers',
  'remove cgroups',
  'close proxies',
  'let the target go',
  'remove containers',
];
/** The teardown of a run whose workload ended (on time, Ctrl-C, a violation): the slot was given back already. */
const AFTER_THE_SLOT = TEARDOWN.filter((end) => end !== 'give slot back');

describe('a run, phase by phase', () => {
  it('starts, runs its workload, tears down in order, then checks', async () => {
    const r = await runWith(undefined);
    expect(fake.calls).toEqual([
      // The clients connect before the slot: the slot holds the workload only.
      ...['engine', 'image', 'fork workers', 'start cluster', 'open proxies', 'clients connected', 'take slot'],
      ...['go', 'nemesis', 'heal', 'stop clients', 'progress done'],
      // The slot goes as the workload ends, before the teardown (whose own give-back is then a no-op).
      'give slot back',
      ...AFTER_THE_SLOT,
      'check',
    ]);
    expect(r.valid).toBe(true);
    expect(Object.keys(r.timings.phases ?? {})).toEqual(['start', 'ready', 'queued', 'workload', 'teardown', 'check']);
  });

  it('Ctrl-C while the cluster starts: the workers go, then what carries the run id', async () => {
    await expect(runWith('ctrl-c at start')).rejects.toThrow('interrupted (SIGINT) before the workload began');
    expect(fake.calls.slice(fake.calls.indexOf('start cluster') + 1)).toEqual([
      'kill workers',
      'remove cgroups',
      'remove containers',
    ]);
  });

  it('proxies that fail to open: the faults heal and close, and the cluster goes, in the same order', async () => {
    await expect(runWith('proxies fail')).rejects.toThrow('port taken');
    expect(fake.calls.slice(fake.calls.indexOf('open proxies') + 1)).toEqual(
      TEARDOWN.filter((end) => end !== 'progress stops' && end !== 'give slot back'),
    );
  });

  it('Ctrl-C in the workload: healed and torn down in order, then checked, interrupted', async () => {
    const r = await runWith('ctrl-c in workload', 30);
    expect(fake.calls.slice(fake.calls.indexOf('progress done') + 1)).toEqual([
      'give slot back',
      ...AFTER_THE_SLOT,
      'check',
    ]);
    expect(r.conditions.map((c) => c.kind)).toEqual(['interrupted']);
  });

  it('--stop-on-violation: the first overlap ends the workload, then the same teardown', async () => {
    const r = await runWith('overlap', 30);
    expect(r.stoppedEarly?.why).toBe('two clients held the lock at once (overlapping holds)');
    expect(fake.calls.slice(fake.calls.indexOf('progress done') + 1)).toEqual([
      'give slot back',
      ...AFTER_THE_SLOT,
      'check',
    ]);
  });
});
