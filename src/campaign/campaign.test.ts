import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckResult } from '../../checkers/result.js';
import { specOf, specOfYaml } from '../../test/unit/campaign-plan.js';
import { expectOwnScriptsOnly } from '../../test/unit/page-policy.js';
import { userErrorOf } from '../../test/unit/user-error.js';
import type { CampaignSummary, CellResult } from '../campaign-data/summary-record.js';
import { pointsByConfiguration } from '../campaign-data/tallies.js';
import { summaryJson } from '../campaign-data/write-summary.js';
import { DEFAULTS } from '../run-data/config.js';
import { UserError } from '../util/errors.js';
import { packageRoot } from '../util/paths.js';
import { judge } from './expect.js';
import { campaignSource } from './load.js';
import { type Cell, expandCells, parseShard, type ResolvedCell, shardCells } from './matrix.js';
import { campaignJUnit, summaryHtml, terminalTable } from './report.js';
import { cellSlug } from './run.js';
import { type CampaignFile, readCampaignFile } from './spec.js';
import { planCampaign } from './validate.js';

const errorOf = (yaml: string): string => {
  try {
    specOfYaml(yaml, 'campaign.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(UserError);
    const message = (err as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error('no error');
};

describe('campaign file validation: one line naming the key path', () => {
  it.each([
    [
      'a scalar that is not a valid item',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid\n  - backend: redis\n    fencing: maybe\n    expect: valid',
      'campaign.yaml: matrix[1].fencing: expected a list of on|off, got "maybe"',
    ],
    [
      'a bad list item',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    fencing: [on, maybe]\n    expect: valid',
      'campaign.yaml: matrix[0].fencing[1]: expected one of on|off, got "maybe"',
    ],
    [
      'an unknown key at the top',
      'seeds: [1]\nbogus: 1\nmatrix: [{ backend: redis, expect: valid }]',
      'campaign.yaml: bogus: unknown key: expected one of name, description, shrink, seeds, defaults, matrix',
    ],
    [
      'an unknown key in an entry',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid\n    nemeses: [none]',
      /^campaign\.yaml: matrix\[0\]\.nemeses: unknown key: did you mean nemesis\? Expected one of backend, workload, nemesis, scenario, fencing, label, seeds, expect, availability, options, overrides, explore$/,
    ],
    [
      'an unknown run option',
      'seeds: [1]\ndefaults: { tll: 5 }\nmatrix:\n  - backend: redis\n    expect: valid',
      /^campaign\.yaml: defaults\.tll: unknown key: did you mean ttl\? Expected one of lose-data, time-limit, concurrency, ttl, /,
    ],
    [
      'an empty matrix',
      'seeds: [1]\nmatrix: []',
      'campaign.yaml: matrix: expected a non-empty list of matrix entries, got []',
    ],
    ['no matrix', 'seeds: [1]', 'campaign.yaml: matrix: expected a non-empty list of matrix entries, got nothing'],
    ['an empty file', '', /^campaign\.yaml: expected a campaign \(a map with matrix.*\), got nothing$/],
    ['a list for a file', '- a\n- b', /^campaign\.yaml: expected a campaign .*, got a list$/],
    [
      'a wrong type',
      'seeds: [1]\ndefaults: { time-limit: soon }\nmatrix:\n  - backend: redis\n    expect: valid',
      'campaign.yaml: defaults.time-limit: expected a number > 0, got "soon"',
    ],
    [
      'a bad number',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid\n    options: { ttl: -5 }',
      'campaign.yaml: matrix[0].options.ttl: expected a whole number > 0, got -5',
    ],
    [
      'a bad seed',
      'seeds: [1.5]\nmatrix:\n  - backend: redis\n    expect: valid',
      'campaign.yaml: seeds[0]: expected a whole number from 0 to 4294967295, got 1.5',
    ],
    [
      'an unknown backend',
      'seeds: [1]\nmatrix:\n  - backend: [redis, etcdx]\n    expect: valid',
      /^campaign\.yaml: matrix\[0\]\.backend\[1\]: unknown backend "etcdx": did you mean etcd\? Expected one of redis\|redlock/,
    ],
    [
      'an unknown backend, alone',
      'seeds: [1]\nmatrix:\n  - backend: etcdx\n    expect: valid',
      /^campaign\.yaml: matrix\[0\]\.backend: unknown backend "etcdx": did you mean etcd\? Expected one of redis\|redlock/,
    ],
    [
      'an unknown workload',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    workload: queue\n    expect: valid',
      /^campaign\.yaml: matrix\[0\]\.workload: unknown workload "queue": expected one of lock-set\|mutex/,
    ],
    [
      'an unknown nemesis',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    nemesis: [none, chaos]\n    expect: valid',
      /^campaign\.yaml: matrix\[0\]\.nemesis\[1\]: unknown nemesis 'chaos'.*client-pause/,
    ],
    [
      'an unknown scenario',
      'seeds: [1]\nmatrix:\n  - scenario: nope',
      /^campaign\.yaml: matrix\[0\]\.scenario: unknown scenario "nope": expected one of .*control/,
    ],
    [
      'nemesis and scenario together',
      'seeds: [1]\nmatrix:\n  - scenario: control\n    nemesis: none',
      'campaign.yaml: matrix[0]: give nemesis or scenario, not both (a scenario brings its own faults)',
    ],
    [
      'fencing on Redlock',
      'seeds: [1]\nmatrix:\n  - backend: redlock\n    fencing: [on, off]\n    expect: valid',
      /^campaign\.yaml: matrix\[0\]\.fencing: redlock cannot be fenced \(Redlock has no fencing token.*\): give fencing off for it$/,
    ],
    [
      'no expectation',
      'seeds: [1]\nmatrix:\n  - backend: redis',
      'campaign.yaml: matrix[0].expect: expected valid|invalid|any, got nothing',
    ],
    [
      'a bad expectation',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    expect: maybe',
      'campaign.yaml: matrix[0].expect: expected one of valid|invalid|any, got "maybe"',
    ],
    [
      'no seeds',
      'matrix:\n  - backend: redis\n    expect: valid',
      'campaign.yaml: matrix[0].seeds: expected a list of seeds, got nothing (give seeds here or at the top)',
    ],
    [
      'no backend',
      'seeds: [1]\nmatrix:\n  - nemesis: none\n    expect: valid',
      /^campaign\.yaml: matrix\[0\]\.backend: expected a list of redis\|redlock.* \(or a scenario\), got nothing$/,
    ],
    [
      'an override that matches nothing',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid\n    overrides:\n      - when: { nemesis: client-pause }\n        expect: invalid',
      'campaign.yaml: matrix[0].overrides[0].when: matches no cell of this entry',
    ],
    [
      'an override without expect',
      'seeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid\n    overrides:\n      - when: { seed: 1 }',
      'campaign.yaml: matrix[0].overrides[0].expect: expected one of valid|invalid|any, got nothing',
    ],
    [
      'a scenario with a workload it does not run',
      'seeds: [1]\nmatrix:\n  - scenario: control\n    workload: [lock-set, mutex]',
      'campaign.yaml: matrix[0].workload: scenario "control" runs workload lock-set, not mutex: leave workload out, or split the entry',
    ],
    [
      'a bad name',
      'name: "night ly"\nseeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid',
      'campaign.yaml: name: expected a name of letters, digits, . _ - (a folder name), got "night ly"',
    ],
    [
      'YAML that does not parse',
      'matrix:\n  - backend: [redis\n',
      /^campaign\.yaml: line \d+, column \d+: not valid YAML: /,
    ],
    [
      'a duplicate key',
      'matrix: []\nmatrix: []',
      "campaign.yaml: keys given twice in one map: 'matrix' (line 2): keep one of each",
    ],
    [
      'several duplicate keys: all of them, in one line',
      'name: a\nseeds: 3\nname: b\nmatrix:\n  - backend: redis\n    backend: etcd\nseeds: 4\n',
      "campaign.yaml: keys given twice in one map: 'name' (line 3), 'backend' (line 6), 'seeds' (line 7): keep one of each",
    ],
  ])('%s', (_what, yaml, message) => {
    const got = errorOf(yaml);
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });

  it('names every problem of a file at once, not only the first', () => {
    const got = errorOf(
      'seeds: [1, -2]\nbogus: 1\nmatrix:\n  - backend: redis\n    fencing: maybe\n  - backend: redis\n    options: { ttl: 0, hold: x }',
    );
    expect(got).toMatch(/^campaign\.yaml: 5 problems: /);
    for (const where of [
      'bogus: unknown key',
      'seeds[1]',
      'matrix[0].fencing',
      'matrix[1].options.ttl',
      'matrix[1].options.hold',
    ])
      expect(got).toContain(where);
  });
});

const nightly = () =>
  specOfYaml(readFileSync(join(packageRoot, 'examples/nightly.yaml'), 'utf8'), 'examples/nightly.yaml');

describe('matrix expansion', () => {
  it('crosses backend × workload × nemesis × fencing × seeds in file order, seeds innermost', () => {
    const spec = specOfYaml(
      [
        'seeds: [1, 2]',
        'matrix:',
        '  - backend: [redis, redlock]',
        '    nemesis: [none, client-pause]',
        '    expect: valid',
        '  - backend: redis',
        '    fencing: [on, off]',
        '    seeds: [7]',
        '    expect: invalid',
      ].join('\n'),
    );
    expect(expandCells(spec).map((c) => `${c.id} ${c.expect}`)).toEqual([
      'redis/lock-set/none/unfenced/seed-1 valid',
      'redis/lock-set/none/unfenced/seed-2 valid',
      'redis/lock-set/client-pause/unfenced/seed-1 valid',
      'redis/lock-set/client-pause/unfenced/seed-2 valid',
      'redlock/lock-set/none/unfenced/seed-1 valid',
      'redlock/lock-set/none/unfenced/seed-2 valid',
      'redlock/lock-set/client-pause/unfenced/seed-1 valid',
      'redlock/lock-set/client-pause/unfenced/seed-2 valid',
      'redis/lock-set/none/fenced/seed-7 invalid',
      'redis/lock-set/none/unfenced/seed-7 invalid',
    ]);
    expect(expandCells(spec).map((c) => c.index)).toEqual([...Array(10).keys()]);
  });

  it('applies overrides, the last match winning', () => {
    const spec = specOfYaml(
      [
        'seeds: [1, 2]',
        'matrix:',
        '  - backend: redis',
        '    nemesis: [none, client-pause]',
        '    fencing: [on, off]',
        '    expect: valid',
        '    overrides:',
        '      - when: { nemesis: client-pause, fencing: off }',
        '        expect: invalid',
        '      - when: { seed: 2, fencing: [off], nemesis: client-pause }',
        '        expect: valid',
      ].join('\n'),
    );
    const byId = Object.fromEntries(expandCells(spec).map((c) => [c.id, c.expect]));
    expect(byId['redis/lock-set/client-pause/unfenced/seed-1']).toBe('invalid');
    expect(byId['redis/lock-set/client-pause/unfenced/seed-2']).toBe('valid');
    expect(byId['redis/lock-set/client-pause/fenced/seed-1']).toBe('valid');
    expect(byId['redis/lock-set/none/unfenced/seed-1']).toBe('valid');
  });

  it('merges run options: built-in defaults < campaign defaults < scenario < entry options', () => {
    const spec = specOfYaml(
      [
        'seeds: [3]',
        'defaults: { time-limit: 12, ttl: 1500, hold: 10, nemesis-interval: 1 }',
        'matrix:',
        '  - backend: redis',
        '    expect: valid',
        '    options: { hold: 20 }',
        '  - scenario: control',
        '  - scenario: control',
        '    label: ttl-3000',
        '    options: { ttl: 3000 }',
      ].join('\n'),
    );
    const [plain, control, tuned] = expandCells(spec) as [ResolvedCell, ResolvedCell, ResolvedCell];
    expect(plain.config).toMatchObject({
      backend: 'redis',
      workload: DEFAULTS.workload,
      nemesis: 'none',
      fencing: false,
      seed: 3,
      timeLimitS: 12,
      ttlMs: 1500,
      holdMs: 20,
      nemesisIntervalS: 1,
      concurrency: DEFAULTS.concurrency,
      name: 'redis-lock-set-none-unfenced',
    });
    // The control scenario sets its own ttl and hold; the campaign's time limit applies.
    expect(control.config).toMatchObject({ ttlMs: 2000, holdMs: 20, timeLimitS: 12, backend: 'redis' });
    expect(control).toMatchObject({
      scenario: 'control',
      expect: 'valid',
      id: 'redis/lock-set/scenario=control/unfenced/seed-3',
    });
    expect(tuned.config.ttlMs).toBe(3000);
  });

  it('takes a scenario expectation from the scenario, per fencing', () => {
    const spec = specOfYaml('seeds: [1]\nmatrix:\n  - scenario: control\n    fencing: [on, off]');
    expect(expandCells(spec).map((c) => [c.fencing, c.expect])).toEqual([
      [true, 'valid'],
      [false, 'valid'],
    ]);
  });

  it('--time-limit overrides every cell, and a shard is a subset in order', () => {
    const { cells } = planCampaign(campaignSource(join(packageRoot, 'examples/nightly.yaml')), {
      timeLimitS: 3,
      shard: { index: 2, count: 3 },
    });
    expect(cells.every((c) => c.config.timeLimitS === 3)).toBe(true);
    expect(cells.map((c) => c.index)).toEqual([1, 4, 7, 10, 13, 16, 19]);
  });

  it('names each run folder after its cell', () => {
    const [first] = expandCells(nightly()) as [ResolvedCell];
    expect(cellSlug(first)).toBe('001-redis-lock-set-none-fenced-seed-1');
  });

  it('accepts a campaign object from library code, with booleans for fencing', () => {
    const file: CampaignFile = {
      name: 'lib',
      seeds: [5],
      matrix: [{ backend: ['redis'], fencing: [true, false], expect: 'valid' }],
    };
    const spec = specOf(file);
    expect(spec.source).toBe('campaign');
    expect(expandCells(spec).map((c) => c.id)).toEqual([
      'redis/lock-set/none/fenced/seed-5',
      'redis/lock-set/none/unfenced/seed-5',
    ]);
  });
});

describe('examples/nightly.yaml', () => {
  it('has at least 8 configurations × 2 seeds with the known expectations', () => {
    const cells = expandCells(nightly());
    const configs = new Set(cells.map((c) => c.id.replace(/\/seed-\d+$/, '')));
    expect(configs.size).toBeGreaterThanOrEqual(8);
    for (const config of configs) {
      expect(cells.filter((c) => c.id.startsWith(`${config}/seed-`)).length).toBeGreaterThanOrEqual(2);
    }
    const lockSet = cells.filter((c) => c.workload === 'lock-set');
    for (const c of lockSet) {
      if (c.nemesis === 'none') expect(c.expect, c.id).toBe('valid');
      if (c.backend === 'redlock' && c.nemesis === 'client-pause' && !c.fencing) expect(c.expect, c.id).toBe('invalid');
      if (c.backend === 'redis' && c.nemesis === 'client-pause' && c.fencing) expect(c.expect, c.id).toBe('valid');
    }
    expect(cells.some((c) => c.backend === 'redlock' && c.fencing)).toBe(false);
    expect(cells.some((c) => c.expect === 'invalid')).toBe(true);
  });
});

describe('sharding', () => {
  it('parses i/n', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', '1/0', 'a/b', '1', '1/2/3', '-1/2']) {
      expect(() => parseShard(bad)).toThrow(/--shard takes i\/n with 1 <= i <= n/);
    }
  });

  const matrixArb: fc.Arbitrary<CampaignFile> = fc
    .array(
      fc.record({
        backend: fc.subarray(['redis', 'redlock'], { minLength: 1 }),
        workload: fc.subarray(['lock-set', 'mutex'], { minLength: 1 }),
        nemesis: fc.subarray(['none', 'client-pause'], { minLength: 1 }),
        fenced: fc.boolean(),
        seeds: fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 4 }),
        expect: fc.constantFrom('valid' as const, 'invalid' as const),
      }),
      { minLength: 1, maxLength: 5 },
    )
    .map((entries) => ({
      matrix: entries.map((e, i) => ({
        // Entries may overlap: a label per entry keeps each cell one configuration.
        label: `e${i}`,
        backend: e.backend,
        workload: e.workload,
        nemesis: e.nemesis,
        // Redlock cannot be fenced: fence only Redis-only entries.
        fencing: e.fenced && !e.backend.includes('redlock') ? ['on' as const, 'off' as const] : ['off' as const],
        seeds: e.seeds,
        expect: e.expect,
      })),
    }));

  it('for any matrix and n, the shards are disjoint and their union is the cell list', () => {
    fc.assert(
      fc.property(matrixArb, fc.integer({ min: 1, max: 12 }), (file, n) => {
        const cells = expandCells(specOf(file));
        const shards = Array.from({ length: n }, (_, i) => shardCells(cells, { index: i + 1, count: n }));
        const seen = shards.flat().map((c) => c.index);
        // Every cell exactly once: same multiset as the full list.
        expect([...seen].sort((a, b) => a - b)).toEqual(cells.map((c) => c.index));
        expect(new Set(seen).size).toBe(seen.length);
        // Balanced, and each shard keeps file order.
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        for (const s of shards) expect(s.map((c) => c.index)).toEqual([...s.map((c) => c.index)].sort((a, b) => a - b));
        // Deterministic: expanding again gives the same shards.
        const again = expandCells(specOf(file));
        expect(shardCells(again, { index: 1, count: n }).map((c) => c.id)).toEqual(shards[0]?.map((c) => c.id));
      }),
      { numRuns: 200 },
    );
  });
});

const result = (checker: string, valid: CheckResult['valid'], summary: string, counts = true): CheckResult => ({
  checker,
  valid,
  summary,
  counts,
});

describe('expectation comparison', () => {
  const overlap = result('mutual-exclusion', false, '3 overlapping holds of 40');
  const fine = result('lost-updates', true, '40 acknowledged adds, all in the final read');

  it('meets an expectation of the same verdict', () => {
    expect(judge('valid', { valid: true, results: [fine] })).toEqual({
      actual: 'valid',
      met: true,
      message: 'valid as expected',
    });
    expect(judge('invalid', { valid: false, results: [overlap, fine] })).toEqual({
      actual: 'invalid',
      met: true,
      message: 'invalid as expected: mutual-exclusion: 3 overlapping holds of 40',
    });
  });

  it('names the violation when a valid configuration fails', () => {
    expect(judge('valid', { valid: false, results: [overlap, fine] })).toEqual({
      actual: 'invalid',
      met: false,
      message: 'expected valid, got INVALID: mutual-exclusion: 3 overlapping holds of 40',
    });
  });

  it('says so when a known-unsafe configuration stops failing', () => {
    const o = judge('invalid', { valid: true, results: [fine, result('mutual-exclusion', false, 'shown', false)] });
    expect(o.met).toBe(false);
    expect(o.actual).toBe('valid');
    expect(o.message).toBe(
      'expected invalid, got valid: the known-unsafe configuration was not caught (lost-updates: 40 acknowledged adds, all in the final read)',
    );
  });

  it('never meets an expectation with unknown, an error or an interruption', () => {
    expect(
      judge('valid', { valid: 'unknown', results: [result('linearizable', 'unknown', 'time budget ran out')] }),
    ).toEqual({
      actual: 'unknown',
      met: false,
      message: 'expected valid, got unknown: linearizable: time budget ran out',
    });
    expect(judge('invalid', { error: 'client workers failed' })).toEqual({
      actual: 'error',
      met: false,
      message: 'the run failed: client workers failed',
    });
    expect(judge('valid', { valid: true, results: [], aborted: true }).actual).toBe('aborted');
    expect(judge('valid', { notRun: true })).toMatchObject({ actual: 'not-run', met: false });
  });
});

describe('hostile campaign files: one line, never a crash', () => {
  it('a path that is not a regular file, or a file past 4 MiB: refused, not read', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockchaos-campaign-file-'));
    const fifo = join(dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const huge = join(dir, 'huge.yaml');
    writeFileSync(huge, '');
    truncateSync(huge, 2 ** 31);
    const refusal = (path: string) => userErrorOf(() => readCampaignFile(path));
    expect(refusal('/dev/zero')).toBe(
      '/dev/zero: is a device, not a regular file: give the campaign file as a regular file (save a stream to one first)',
    );
    expect(refusal(fifo)).toMatch(/fifo\.yaml: is a FIFO, not a regular file/);
    expect(refusal(dir)).toBe(`${dir}: is a folder, not a campaign file`);
    expect(refusal(huge)).toBe(
      `${huge}: the campaign file is 2048 MiB, past the limit of 4 MiB: a campaign file is a matrix of a few kB: give the YAML file`,
    );
  });

  it('a YAML alias bomb', () => {
    let yaml = 'a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n';
    let prev = 'a';
    for (const c of 'bcdefghi') {
      yaml += `${c}: &${c} [${Array(9).fill(`*${prev}`).join(', ')}]\n`;
      prev = c;
    }
    expect(errorOf(`${yaml}matrix: *i\n`)).toBe(
      'campaign.yaml: its aliases (*name) expand too far (a YAML alias bomb?): write the values out, or use fewer aliases',
    );
  });

  it('a value nested 100,000 deep', () => {
    expect(errorOf(`matrix: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`)).toMatch(
      /^campaign\.yaml: (line \d+, column \d+: )?nested too deeply \(a campaign needs a few levels/,
    );
    expect(errorOf(`{"matrix": ${'['.repeat(100)}${']'.repeat(100)}}`)).toMatch(/^campaign\.yaml: nested too deeply/);
  });

  it('a matrix of a million cells is refused before it is expanded, with the limit', () => {
    const seeds = Array.from({ length: 250_000 }, (_, i) => i);
    expect(() =>
      specOf({
        seeds,
        matrix: [{ backend: 'redis', fencing: ['on', 'off'], workload: ['lock-set', 'mutex'], expect: 'valid' }],
      }),
    ).toThrow(
      /^campaign: matrix\[0\]: the matrix expands to more than 10000 cells .*: use fewer seeds or split the campaign$/,
    );
  });

  it('counts the cells before it builds any: an entry that cannot build is not reached', () => {
    // matrix[0] would fail as it is built (Redlock fenced); matrix[1] is counted first.
    const seeds = Array.from({ length: 250_000 }, (_, i) => i);
    expect(() =>
      specOf({
        matrix: [
          { backend: 'redlock', fencing: 'on', seeds: [1], expect: 'valid' },
          { backend: ['redis', 'etcd'], fencing: ['on', 'off'], seeds, expect: 'valid' },
        ],
      }),
    ).toThrow(/^campaign: matrix\[1\]: the matrix expands to more than 10000 cells /);
  });

  it('holds cells to the run bounds (a time limit that overflows a timer)', () => {
    expect(
      errorOf('seeds: [1]\ndefaults: { time-limit: 1e9 }\nmatrix:\n  - backend: redis\n    expect: valid\n'),
    ).toMatch(
      /^campaign\.yaml: matrix\[0\]: cell redis\/lock-set\/none\/unfenced\/seed-1: --time-limit must be at most 86400 s/,
    );
  });
});

describe('availability expectations', () => {
  const perf = (outside: number | null): CheckResult => ({
    checker: 'perf',
    valid: true,
    counts: false,
    summary: '',
    details: { kinds: { acquire: { outside: { availability: outside } } } },
  });

  it('a valid run whose lock answered too few acquires does not meet a fault-free expectation', () => {
    const o = judge('valid', { valid: true, results: [perf(0.45)] }, 0.9);
    expect(o).toEqual({
      actual: 'valid',
      met: false,
      message:
        'valid as expected, but the lock was not available: acquire ok outside faults 45%, expected at least 90%',
    });
    expect(judge('valid', { valid: true, results: [perf(0.95)] }, 0.9).met).toBe(true);
    expect(judge('valid', { valid: true, results: [perf(null)] }, 0.9).message).toMatch(/no acquire was tried/);
    expect(judge('valid', { valid: true, results: [perf(0.45)] }).met).toBe(true);
  });

  it('fault-free presets carry one into their cells; an entry may set or override it', () => {
    const spec = specOf({
      seeds: [1],
      matrix: [
        { scenario: 'control', fencing: 'off' },
        { scenario: 'control', fencing: 'on', availability: 0.5 },
        { scenario: 'gc-pause', fencing: 'on' },
        { backend: 'redis', expect: 'valid', availability: 0.99 },
      ],
    });
    expect(expandCells(spec).map((c) => c.availability)).toEqual([0.9, 0.5, undefined, 0.99]);
    expect(errorOf('seeds: [1]\nmatrix:\n  - backend: redis\n    expect: valid\n    availability: 90\n')).toBe(
      'campaign.yaml: matrix[0].availability: expected a number from 0 to 1, got 90',
    );
  });
});

describe('campaign reports', () => {
  const cells = expandCells(nightly()).slice(0, 3);
  const summary: CampaignSummary = {
    name: 'nightly',
    source: 'examples/nightly.yaml',
    dir: 'store/campaigns/nightly/T',
    shard: { index: 1, count: 7 },
    totalCells: 20,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:01:00.000Z',
    interrupted: true,
    state: 'cut-short',
    cutShortBy: 'SIGINT',
    met: false,
    cells: [
      {
        cell: cells[0] as Cell,
        ...judge('valid', { valid: true, results: [] }),
        durationS: 12.5,
        dir: 'store/campaigns/nightly/T/runs/001-x/R',
        report: 'store/campaigns/nightly/T/runs/001-x/R/report.html',
      },
      {
        cell: cells[1] as Cell,
        ...judge('valid', { valid: false, results: [result('lost-updates', false, '2 of 9 <adds> lost & "gone"')] }),
        durationS: 13,
        dir: 'store/campaigns/nightly/T/runs/002-y/R',
        report: 'store/campaigns/nightly/T/runs/002-y/R/report.html',
        checkers: [{ checker: 'lost-updates', valid: false, counts: true, summary: '2 of 9 <adds> lost & "gone"' }],
      },
      { cell: cells[2] as Cell, ...judge('valid', { notRun: true }), durationS: 0 },
    ],
  };

  it('writes one JUnit test case per cell: failure on a mismatch, skipped when not run', () => {
    const xml = campaignJUnit(summary);
    expect(xml).toContain('<testsuite name="campaign nightly shard 1/7" tests="3" failures="1" errors="0" skipped="1"');
    expect(xml).toContain(
      '<testcase name="redis/lock-set/none/fenced/seed-1" classname="campaign.nightly.redis" time="12.500">\n      <system-out>run folder: store/campaigns/nightly/T/runs/001-x/R\nreport: store/campaigns/nightly/T/runs/001-x/R/report.html</system-out>',
    );
    expect(xml).toContain(
      '<failure message="expected valid, got INVALID: lost-updates: 2 of 9 &lt;adds&gt; lost &amp; &quot;gone&quot; (report: store/campaigns/nightly/T/runs/002-y/R/report.html)" type="violation">',
    );
    expect(xml).toContain('<skipped message="never ran: the campaign was cut short"/>');
    expect(xml).toContain('<property name="state" value="cut-short"/>');
    expect(xml).toContain('<property name="cut-short-by" value="SIGINT"/>');
  });

  it('links each run report and folder relative to the campaign folder', () => {
    const html = summaryHtml(summary);
    expect(html).toContain('<a href="runs/001-x/R/report.html">report</a>');
    expect(html).toContain('<a href="runs/002-y/R/">folder</a>');
    expect(html).toContain('2 of 9 &lt;adds&gt; lost &amp; &quot;gone&quot;');
    expect(html).not.toMatch(/<script[^>]+src=|<link|src="http/);
    // Coloured by outcome, not verdict; mismatches first; sortable.
    const rows = [...html.matchAll(/<tr class="(met|miss|skip)">\n<td data-key="(\d+)">/g)].map((m) => [m[1], m[2]]);
    expect(rows).toEqual([
      ['miss', '2'],
      ['skip', '3'],
      ['met', '1'],
    ]);
    expect(html).toContain('<td class="o-miss">INVALID</td><td class="o-miss" data-key="0">✗ not met</td>');
    expect(html).toContain('<table class="sortable" id="cells">');
    expect(html).not.toMatch(/class="v-invalid"/);
    const json = JSON.parse(summaryJson(summary));
    expect(json.cells[0]).toMatchObject({
      dir: 'runs/001-x/R',
      report: 'runs/001-x/R/report.html',
      met: true,
      seed: 1,
    });
    expect(json.totals).toEqual({ cells: 3, met: 1, mismatched: 1, errors: 0, interrupted: 1 });
    expect(json.configurations).toEqual([
      { configuration: 'redis/lock-set/none/fenced', expect: 'valid', met: 1, ran: 2, seeds: 2 },
      { configuration: 'redis/lock-set/none/unfenced', expect: 'valid', met: 0, ran: 0, seeds: 1 },
    ]);
  });

  it('escapes what a shard read back from disk holds, and runs only its own script', () => {
    // campaign merge draws summary.html from the shards' summary.json: from anyone.
    const x = '<img src=x onerror=alert(1)>';
    const hostile = x as unknown as number;
    const html = summaryHtml({
      ...summary,
      name: x,
      source: x,
      startedAt: x,
      totalCells: hostile,
      cells: summary.cells.map((r) => ({
        ...r,
        message: x,
        stoppedEarlyS: hostile,
        cell: { ...r.cell, seed: hostile },
      })),
    });
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expectOwnScriptsOnly(html);
  });

  it('tallies the code points faults were aimed at, by configuration over its seeds', () => {
    const row = (hits: number, followed: number, reached = 40) => [
      { point: 'wire:DEL', fault: 'wire:pause', reached, hits, followed },
      { point: 'after-grant', reached: 40, hits: 0, followed: 0 },
    ];
    const withPoints: CampaignSummary = {
      ...summary,
      cells: summary.cells.map((r, i) => ({ ...r, coverage: row(i === 2 ? 0 : 2, i === 0 ? 2 : 1, i === 2 ? 0 : 40) })),
    };
    const [first, second] = pointsByConfiguration(withPoints);
    expect(first).toEqual({
      configuration: 'redis/lock-set/none/fenced',
      point: 'wire:DEL',
      fault: 'wire:pause',
      reached: 80,
      hits: 4,
      followed: 3,
      runs: 2,
      runsHit: 2,
    });
    expect(second).toMatchObject({ reached: 0, hits: 0, runs: 1, runsHit: 0 });
    const table = terminalTable(withPoints);
    expect(table).toMatch(/code points, over each configuration’s seeds:/);
    expect(table).toMatch(/wire:DEL {2}reached 80× {2}wire:pause: hit 4× in 2 of 2 runs, a violation followed 3/);
    expect(table).toMatch(/wire:DEL {2}not exercised {2}wire:pause: never hit/);
    const html = summaryHtml(withPoints);
    expect(html).toContain("<h2>Code points, over each configuration's seeds</h2>");
    expect(html).toContain('<td>not exercised</td>');
  });

  it('says which cells stopped early and where the cells spent their time', () => {
    const [first, second] = summary.cells as [CellResult, CellResult];
    const timed: CampaignSummary = {
      ...summary,
      cells: [
        {
          ...first,
          stoppedEarlyS: 4.2,
          stoppedEarlyWhy: 'overlapping holds',
          phases: { start: 5, workload: 4.2, check: 1 },
        },
        { ...second, phases: { start: 6, queued: 3, workload: 30, check: 0.5, report: 1 } },
      ],
    };
    const table = terminalTable(timed);
    expect(table).toContain('1 of 2 cells stopped early, at their first counted violation: #1 at 4.2 s');
    expect(table).toContain('time by phase over 2 cells: start 11 s, queued 3 s, workload 34 s, check 2 s, report 1 s');
    expect(JSON.parse(summaryJson(timed)).cells[0]).toMatchObject({
      stoppedEarlyS: 4.2,
      stoppedEarlyWhy: 'overlapping holds',
      phases: { start: 5, workload: 4.2, check: 1 },
    });
    expect(terminalTable(summary)).not.toMatch(/stopped early|time by phase/);
  });

  it('prints a table and names the mismatches', () => {
    const table = terminalTable(summary);
    expect(table).toMatch(/^#\s+cell\s+expect\s+actual\s+time\s+result$/m);
    expect(table).toMatch(/^2\s+redis\/lock-set\/none\/fenced\/seed-2\s+valid\s+INVALID\s+13\.0 s\s+MISMATCH$/m);
    expect(table).toContain(
      'campaign nightly shard 1/7 (cut short by SIGINT): 3 cells of 20, 1 met their expectation, 1 did not, 1 interrupted or not run',
    );
    expect(table).toContain(
      [
        'by configuration, over its seeds:',
        '  redis/lock-set/none/fenced    expect valid    met 1 of 2',
        '  redis/lock-set/none/unfenced  expect valid    met 0 of 0 (1 not run)',
      ].join('\n'),
    );
    expect(summaryHtml(summary)).toContain(
      '<td>redis/lock-set/none/fenced</td><td>valid</td><td class="num">1 of 2</td>',
    );
  });
});

describe('the campaign JSON Schema', () => {
  it('is the one shipped in examples/ (regenerate: lockchaos campaign --schema > examples/campaign.schema.json)', async () => {
    const { campaignJsonSchema } = await import('./campaign-json-schema.js');
    const shipped = JSON.parse(readFileSync(join(packageRoot, 'examples/campaign.schema.json'), 'utf8'));
    expect(shipped).toEqual(campaignJsonSchema());
  });

  it('knows every run option and every key the validator knows', async () => {
    const { campaignJsonSchema } = await import('./campaign-json-schema.js');
    const { OPTION_FIELDS } = await import('./spec.js');
    const schema = campaignJsonSchema() as {
      properties: { defaults: { properties: object }; matrix: { items: { properties: object } } };
    };
    expect(Object.keys(schema.properties.defaults.properties).sort()).toEqual(Object.keys(OPTION_FIELDS).sort());
    // A file with a key the schema lacks is refused by the validator too.
    for (const key of Object.keys(schema.properties.matrix.items.properties)) {
      let problem = '';
      try {
        specOfYaml(`seeds: [1]\nmatrix: [{ backend: redis, expect: valid, ${key}: {} }]`, 'c.yaml');
      } catch (err) {
        problem = (err as Error).message;
      }
      expect(problem).not.toMatch(/unknown key/);
    }
  });
});

describe('cells of the same story with different backend options', () => {
  it('are different configurations: their ids, and so their tallies, name the options', () => {
    const spec = specOf({
      seeds: [1],
      matrix: [
        { scenario: 'sentinel-split-brain', fencing: 'off', expect: 'valid', options: { 'backend-options': 'wait=1' } },
        { scenario: 'sentinel-split-brain', fencing: 'off' },
      ],
    });
    const ids = expandCells(spec).map((c) => c.id);
    expect(ids).toEqual([
      'redis-sentinel[wait=1]/lock-set/scenario=sentinel-split-brain/unfenced/seed-1',
      'redis-sentinel/lock-set/scenario=sentinel-split-brain/unfenced/seed-1',
    ]);
  });
});

describe("docs/nightly.md's campaign file", () => {
  it('is a valid campaign, with every top-level key and run option it names', () => {
    const page = readFileSync(join(packageRoot, 'docs/nightly.md'), 'utf8');
    const block = /```yaml\n([\s\S]*?)```/.exec(page)?.[1];
    expect(block).toBeDefined();
    const spec = specOfYaml(block as string, 'docs/nightly.md');
    expect(spec.shrink).toBe(true);
    expect(spec.defaults).toMatchObject({ timeLimitS: 20, nemesisIntervalS: 2, stopOnViolation: true });
    expect(expandCells(spec).length).toBeGreaterThan(0);
  });
});

describe('measurement cells (lockchaos sweep, bench)', () => {
  it('a label names the entry in its cells ids; the options reach the run', () => {
    const spec = specOf({
      seeds: [1],
      matrix: [
        {
          backend: 'redis',
          nemesis: 'client-pause',
          label: 'pause-ttl=0.5',
          expect: 'any',
          options: { 'pause-ttl': 0.5, 'backoff-jitter': 0 },
        },
      ],
    });
    const [cell] = expandCells(spec);
    expect(cell?.id).toBe('redis/lock-set/client-pause/unfenced/pause-ttl=0.5/seed-1');
    expect(cell?.config).toMatchObject({ pauseTtl: 0.5, backoffJitterMs: 0 });
    expect(errorOf('seeds: [1]\nmatrix:\n  - backend: redis\n    expect: any\n    label: a/b\n')).toMatch(
      /^campaign\.yaml: matrix\[0\]\.label: expected a label of letters/,
    );
    expect(
      errorOf('seeds: [1]\nmatrix:\n  - backend: redis\n    expect: any\n    options: { pause-ttl: 1 }\n'),
    ).toMatch(/--pause-ttl sets how long client-pause pauses: add client-pause to --nemesis/);
  });

  it('expect any: either verdict meets it, unknown does not', () => {
    expect(judge('any', { valid: true, results: [] })).toMatchObject({ actual: 'valid', met: true });
    expect(judge('any', { valid: false, results: [] })).toMatchObject({ actual: 'invalid', met: true });
    expect(judge('any', { valid: 'unknown', results: [] })).toMatchObject({ actual: 'unknown', met: false });
    expect(judge('any', { error: 'boom' }).met).toBe(false);
  });
});
