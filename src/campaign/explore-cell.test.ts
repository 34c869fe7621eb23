/**
 * A campaign cell that explores: what a file may say (and the one line it gets when it says
 * it wrong), the cells it makes, how an exploration meets an expectation, and what its
 * summary keeps (and refuses when a stored one is not what the campaign writes).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planOf, specOfYaml } from '../../test/unit/campaign-plan.js';
import { userErrorOf } from '../../test/unit/user-error.js';
import { readSummary } from '../campaign-data/read-summary.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import type { TableRow } from '../explore/table.js';
import { explorationOutcome, replayFlags } from './explore-cell.js';
import type { CampaignFile } from './spec.js';

const entry = (more: Record<string, unknown> = {}) => ({
  backend: 'redis',
  options: { 'client-command': 'python3 client.py' },
  explore: { budget: 12, 'run-time': 6 },
  ...more,
});
const campaign = (...entries: Record<string, unknown>[]) => ({ seeds: [1], matrix: entries }) as CampaignFile;

describe('a campaign cell that explores', () => {
  it('is named by explore, runs no fault itself, and expects valid unless told', () => {
    const { cells } = planOf(campaign(entry(), entry({ label: 'old', explore: {}, expect: 'invalid' })));
    expect(cells.map((c) => c.id)).toEqual([
      'redis+client/lock-set/explore/unfenced/seed-1',
      'redis+client/lock-set/explore/unfenced/old/seed-1',
    ]);
    expect(cells[0]).toMatchObject({
      nemesis: 'explore',
      expect: 'valid',
      explore: { budget: { runs: 12 }, runTimeS: 6, shrinkRuns: 4 },
    });
    expect(cells[0]?.resolved.config.nemesis).toBe('none');
    expect(cells[0]?.resolved.faults).toEqual([]);
    expect(cells[1]).toMatchObject({
      expect: 'invalid',
      explore: { budget: { runs: 30 }, runTimeS: 8, shrinkRuns: 4 },
    });
    expect(planOf(campaign(entry({ explore: { budget: '20m', 'shrink-runs': 0 } }))).cells[0]?.explore).toEqual({
      budget: { minutes: 20 },
      runTimeS: 8,
      shrinkRuns: 0,
    });
    expect(planOf(campaign(entry({ explore: { 'until-broken': true } }))).cells[0]?.explore?.untilBroken).toBe(true);
  });

  it.each([
    [
      { budget: 0 },
      /^campaign\.yaml: matrix\[0\]\.explore\.budget: expected a whole number of runs above 0 \(12\), or of minutes \("20m"\), got 0$/,
    ],
    [{ budget: 'ten' }, /matrix\[0\]\.explore\.budget: expected a whole number of runs above 0/],
    [{ 'run-time': -1 }, /^campaign\.yaml: matrix\[0\]\.explore\.run-time: expected a number > 0, got -1$/],
    [{ 'shrink-runs': 1.5 }, /matrix\[0\]\.explore\.shrink-runs: expected a whole number >= 0, got 1\.5$/],
    [
      { runs: 3 },
      /matrix\[0\]\.explore\.runs: unknown key: .*expected one of budget, run-time, shrink-runs, until-broken$/,
    ],
    [{ 'until-broken': 'yes' }, /matrix\[0\]\.explore\.until-broken: expected true or false/],
    [7, /matrix\[0\]\.explore: expected a map of budget, run-time, shrink-runs and until-broken/],
  ])('refuses explore %j in one line naming its key', (explore, problem) => {
    const yaml = `seeds: [1]\nmatrix:\n  - backend: redis\n    explore: ${JSON.stringify(explore)}\n`;
    const message = userErrorOf(() => specOfYaml(yaml));
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toMatch(problem);
  });

  it('refuses explore beside a nemesis or a scenario: the exploration chooses the faults', () => {
    const yaml = 'seeds: [1]\nmatrix:\n  - backend: redis\n    nemesis: client-pause\n    explore: {}\n';
    expect(userErrorOf(() => specOfYaml(yaml))).toBe(
      'campaign.yaml: matrix[0].explore: an exploration chooses its own faults: give explore or nemesis, not both',
    );
  });

  it("replays a try with the cell's flags, without the fault, the seed and the time it chooses", () => {
    const { cells } = planOf(campaign(entry()));
    const flags = replayFlags(cells[0]?.resolved.config as never, 6);
    expect(flags).toMatch(/--backend redis .*--client-command 'python3 client\.py'/);
    expect(flags).not.toMatch(/--nemesis |--seed |--name |--store /);
    expect(flags).toMatch(/--time-limit 6$/);
  });
});

describe("an exploring cell's outcome", () => {
  const row = (violations: number): TableRow => ({
    point: 'wire:DEL',
    fault: 'wire:hold',
    spec: 'wire:DEL:hold',
    tries: 1,
    violations,
    finding: "Process 1's DEL, held 1.50 s (wire hold) as it released, deleted process 4's lock.",
    replay: 'lockchaos run --backend redis --nemesis wire:DEL:hold --seed 3',
  });
  const tries = [
    { spec: 'wire:DEL:hold', point: 'wire:DEL', fault: 'wire:hold', seed: 3, verdict: 'invalid' as const, exitCode: 1 },
  ];
  const points = [{ point: 'wire:DEL', reached: 20 }];

  it('is invalid when a configuration broke the lock: met by expect invalid, a mismatch for valid', () => {
    const broke = { exitCode: 1, rows: [row(1)], tries, points };
    expect(explorationOutcome({ expect: 'invalid' }, broke, false)).toMatchObject({
      actual: 'invalid',
      met: true,
      message:
        "invalid as expected: wire:DEL:hold broke the lock: Process 1's DEL, held 1.50 s (wire hold) as it released, deleted process 4's lock.",
    });
    expect(explorationOutcome({ expect: 'valid' }, broke, false)).toMatchObject({
      actual: 'invalid',
      met: false,
      message: expect.stringMatching(
        /^expected valid, got INVALID: wire:DEL:hold broke the lock: .* \(1 try at 1 point\)$/,
      ),
    });
  });

  it('is valid when none did; an error when a try did not run as configured or nothing was learned; aborted when cut', () => {
    const none = {
      exitCode: 0,
      rows: [row(0)],
      tries: [{ ...tries[0]!, verdict: 'valid' as const, exitCode: 0 }],
      points,
    };
    expect(explorationOutcome({ expect: 'valid' }, none, false)).toMatchObject({
      actual: 'valid',
      met: true,
      message: 'valid as expected: no configuration broke the lock in 1 try at 1 point',
    });
    expect(explorationOutcome({ expect: 'invalid' }, none, false).message).toMatch(
      /the known-unsafe library was not caught$/,
    );
    const failed = {
      ...none,
      exitCode: 3,
      tries: [{ ...tries[0]!, verdict: 'error' as const, exitCode: 3, headline: 'not run as configured: x' }],
    };
    expect(explorationOutcome({ expect: 'valid' }, failed, false)).toEqual({
      actual: 'error',
      met: false,
      message: 'the exploration: a try did not run as configured (wire:DEL:hold seed 3: not run as configured: x)',
    });
    const learnedNothing = {
      exitCode: 3,
      rows: [],
      tries: [],
      points: [],
      baseline: { ...tries[0]!, verdict: 'valid' as const },
    };
    expect(explorationOutcome({ expect: 'valid' }, learnedNothing, false).message).toBe(
      "the exploration's baseline learned no point to aim at (valid)",
    );
    expect(explorationOutcome({ expect: 'valid' }, none, true)).toMatchObject({ actual: 'aborted', met: false });
  });
});

describe("an exploring cell's summary", () => {
  const dir = mkdtempSync(join(tmpdir(), 'lockchaos-explore-cell-'));
  const { cells } = planOf(campaign(entry()));
  const { resolved: _, ...cell } = cells[0]!;
  const result: CellResult = {
    cell,
    actual: 'invalid',
    met: false,
    message: 'expected valid, got INVALID: wire:DEL:hold broke the lock: x',
    headline: 'x',
    durationS: 60,
    exploration: {
      file: join(dir, 'runs', 'e', 'explore', 't', 'explore.json'),
      tries: 7,
      points: 5,
      broken: [{ spec: 'wire:DEL:hold', finding: 'x', replay: 'lockchaos run ...', shrunk: 'shrunk in 2 runs to ...' }],
    },
  };
  const summary: CampaignSummary = {
    name: 'lib',
    source: 'lib.yaml',
    dir,
    totalCells: 1,
    startedAt: '2026-12-07T02:00:00.000Z',
    finishedAt: '2026-12-07T02:01:00.000Z',
    interrupted: false,
    state: 'finished',
    met: false,
    cells: [result],
  };

  it('keeps the exploration, its file relative to the campaign folder, and reads it back', () => {
    const text = summaryJson(summary);
    expect(JSON.parse(text).cells[0].exploration.file).toBe('runs/e/explore/t/explore.json');
    writeFileSync(join(dir, 'summary.json'), text);
    const back = readSummary(dir).cells[0];
    expect(back?.exploration).toEqual(result.exploration);
    expect(back?.cell.explore).toEqual(cell.explore);
    expect(readSummary(dir).totals).toMatchObject({ cells: 1, mismatched: 1 });
  });

  it('refuses a stored exploration or request that is not what the campaign writes, in one line', () => {
    const stored = JSON.parse(summaryJson(summary));
    for (const [field, value, said] of [
      [
        'exploration',
        { ...stored.cells[0].exploration, tries: -1 },
        /cell #1's exploration is not an exploration \(\{file, tries, points, broken\}\)/,
      ],
      ['explore', { budget: { runs: 0 }, runTimeS: 6, shrinkRuns: 4 }, /cell #1's explore is not an exploration/],
    ] as const) {
      const bad = join(dir, field);
      mkdirSync(bad, { recursive: true });
      writeFileSync(
        join(bad, 'summary.json'),
        JSON.stringify({ ...stored, cells: [{ ...stored.cells[0], [field]: value }] }),
      );
      const message = userErrorOf(() => readSummary(bad));
      expect(message.split('\n')).toHaveLength(1);
      expect(message).toMatch(said);
    }
  });
});
