import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../checkers/result.js';
import { specOf } from '../../test/unit/campaign-plan.js';
import { expectOwnScriptsOnly } from '../../test/unit/page-policy.js';
import { expandCells } from '../campaign/matrix.js';
import { sweepSpecFromArgs } from '../cli/sweep.js';
import type { Op } from '../history/op.js';
import { DEFAULTS, type TestConfig } from '../run-data/config.js';
import { UserError } from '../util/errors.js';
import { analyseDriftPoint } from './drift-analyse.js';
import { DRIFT_AIMS } from './drift-grid.js';
import { driftSweepHtml, driftSweepTable } from './drift-html.js';
import { measureDriftRun } from './drift-measure.js';
import { sweepCampaign } from './grid.js';
import { sweepJson } from './html.js';

const config: TestConfig = { ...DEFAULTS, name: 't', seed: 3, nemesis: 'node-clock:bridge:rate=1' };
const mutex = (overlaps: number): CheckResult => ({
  checker: 'mutual-exclusion',
  valid: overlaps === 0,
  counts: true,
  summary: '',
  details: { overlaps },
});

function history(ops: [number, Op['type'], string, unknown?][]): Op[] {
  return ops.map(([ms, type, f, value], index) => ({
    index,
    type,
    f,
    process: 'nemesis',
    time: ms * 1e6,
    ...(value === undefined ? {} : { value }),
  }));
}

// One drift of ρ = 1 in effect from 1000 ms (inEffectFrom, within its start) to 3000 ms,
// its clock read back 1900 ms ahead; one that moved nothing (its node refused).
const h = history([
  [900, 'invoke', 'start-node-clock'],
  [1200, 'ok', 'start-node-clock', { nodes: ['n2'], mode: 'rate', rate: 1, pids: { n2: [41] }, inEffectFrom: 1000e6 }],
  [2999, 'invoke', 'stop-node-clock'],
  [3000, 'ok', 'stop-node-clock', { restored: ['n2'], clock: { during: { n2: 1900 }, after: { n2: 0.4 } } }],
  [5000, 'invoke', 'start-node-clock'],
  [5001, 'ok', 'start-node-clock', { nodes: ['n3'], rate: 1, pids: {}, notWarped: { n3: 'ptrace: EPERM' } }],
]);
const run = { dir: '/s/runs/004/t', config, history: h, results: [mutex(0)], valid: true as const, conditions: [] };

const spec = {
  backend: 'redlock',
  fencing: false,
  pauseTtl: [],
  ttlMs: [3000],
  concurrency: [5],
  trials: 2,
  firstSeed: 3,
  timeLimitS: 30,
  nemesisIntervalS: 3,
  holdMs: 2000,
  name: 'sweep-drift-redlock-unfenced',
  drift: [0, 0.005, 1],
};

describe('a drift sweep', () => {
  it('measures each drift as applied, and the rate its clock read back implies', () => {
    const m = measureDriftRun(run);
    expect(m.drifts).toEqual([{ rho: 1, windowMs: 2000, offsetMs: 1900, readRho: 0.95 }]);
    expect(m.driftsNotApplied).toEqual(['ptrace: EPERM']);
    expect(m).toMatchObject({ seed: 3, overlaps: 0, verdict: true, notAsConfigured: false });
  });

  it('sets each point against the model: no two holders where it expects them disagrees', () => {
    const lease = DRIFT_AIMS.redlock?.lease(3000);
    if (!lease) throw new Error('redlock has a drift aim');
    const quiet = measureDriftRun(run);
    const unsafe = analyseDriftPoint({ rho: 1, ttlMs: 3000, concurrency: 5 }, 'x', lease, 2000, [quiet]);
    expect(unsafe.predicted).toMatchObject({ unsafe: true, leaseTrueMs: 1500 });
    expect(unsafe.disagree).toBe(true);
    const hit = analyseDriftPoint({ rho: 1, ttlMs: 3000, concurrency: 5 }, 'x', lease, 2000, [
      { ...quiet, overlaps: 2 },
    ]);
    expect(hit.disagree).toBe(false);
    expect(hit.observed).toMatchObject({ k: 1, n: 1 });
    expect(hit.readRho).toEqual({ min: 0.95, median: 0.95, max: 0.95 });
    // Within the bound, two holders is the disagreement.
    const within = analyseDriftPoint({ rho: 0.005, ttlMs: 3000, concurrency: 5 }, 'y', lease, 2000, [
      { ...quiet, overlaps: 1 },
    ]);
    expect(within.predicted.unsafe).toBe(false);
    expect(within.disagree).toBe(true);
    // A drift point whose drifts moved no clock did not run as it says.
    const none = analyseDriftPoint({ rho: 0.005, ttlMs: 3000, concurrency: 5 }, 'y', lease, 2000, [
      { ...quiet, drifts: [] },
    ]);
    expect(none.disagree).toBe(true);

    const result = { spec, dir: '/s', startedAt: 'a', finishedAt: 'b', points: [hit, within] };
    const html = driftSweepHtml(result);
    expectOwnScriptsOnly(html);
    expect(html).toContain('model and observation disagree');
    expect(html).toContain('href="runs/004/t/report.html"');
    expect(driftSweepTable(result)).toMatch(/0\.005 .*disagree/);
    expect(JSON.parse(sweepJson(result)).points[0].runs[0].dir).toBe('runs/004/t');
  });

  it('is a campaign whose entries move the lease keeper’s clock, ρ = 0 the control', () => {
    const cells = expandCells(specOf(sweepCampaign(spec), 'sweep'));
    expect(cells).toHaveLength(6);
    expect(cells.map((c) => c.config.nemesis)).toEqual([
      'partition:clients-majorities',
      'partition:clients-majorities',
      'partition:clients-majorities,node-clock:bridge:rate=0.005',
      'partition:clients-majorities,node-clock:bridge:rate=0.005',
      'partition:clients-majorities,node-clock:bridge:rate=1',
      'partition:clients-majorities,node-clock:bridge:rate=1',
    ]);
    expect(cells[4]?.config).toMatchObject({ ttlMs: 3000, holdMs: 2000, rate: 2, timeLimitS: 30 });
    const etcd = expandCells(specOf(sweepCampaign({ ...spec, backend: 'etcd', drift: [0, 3] }), 'sweep'));
    expect(etcd.map((c) => c.config.nemesis)).toEqual([
      'none',
      'none',
      'node-clock:leader:rate=3',
      'node-clock:leader:rate=3',
    ]);
  });

  it('takes its defaults from the backend’s story, and refuses what it cannot sweep in one line', () => {
    expect(sweepSpecFromArgs({ backend: 'etcd', drift: '0,0.5,3' })).toMatchObject({
      drift: [0, 0.5, 3],
      ttlMs: [2000],
      holdMs: 600,
      timeLimitS: 30,
      name: 'sweep-drift-etcd-unfenced',
    });
    expect(sweepSpecFromArgs({ backend: 'redlock', drift: '1', ttl: '5000', hold: '4000' })).toMatchObject({
      ttlMs: [5000],
      holdMs: 4000,
    });
    for (const [values, words] of [
      [{ backend: 'postgres', drift: '1' }, /no lease a drift sweep knows/],
      [{ backend: 'redlock', drift: '1', 'pause-ttl': '1' }, /two sweeps/],
      [{ backend: 'redlock', drift: '11' }, /from -0.9 to 10.*got '11'/],
      [{ backend: 'redlock', drift: '0,1e3' }, /got '1e3'/],
      [{ backend: 'redlock', drift: '0.5,0.50' }, /twice/],
      [{ backend: 'redlock', drift: '1,' }, /got ''/],
    ] as const) {
      expect(() => sweepSpecFromArgs(values)).toThrow(UserError);
      expect(() => sweepSpecFromArgs(values)).toThrow(words);
    }
  });
});
