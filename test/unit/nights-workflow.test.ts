/**
 * Nights that add up, as the shipped workflow keeps them (examples/github-actions-nightly.yml),
 * imitated here step by step for three nights and a fourth: its cache restore of nights/,
 * the shards' artifacts downloaded into shards/, its merge command as written (npx
 * lockchaos is the built CLI), its cache save. The shards are written as two campaign
 * jobs leave them (no Docker); on the third night the known-unsafe configuration is
 * planted not caught. serve over the store then shows the three nights and the flip, and
 * the third night's job summary names the flipped configuration.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { writeSyntheticRun } from '../../perf/store.js';
import { judge } from '../../src/campaign/expect.js';
import { expandCells, shardCells } from '../../src/campaign/matrix.js';
import type { CampaignSummary } from '../../src/campaign-data/summary-record.js';
import { summaryJson } from '../../src/campaign-data/write-summary.js';
import { type StoreServer, serveStore } from '../../src/serve/server.js';
import { scanStore } from '../../src/serve/store-index.js';
import { packageRoot } from '../../src/util/paths.js';
import { specOf } from './campaign-plan.js';

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, string>;
}
const workflow = parse(readFileSync(join(packageRoot, 'examples/github-actions-nightly.yml'), 'utf8')) as {
  env: Record<string, string | number>;
  jobs: { merge: { steps: Step[] } };
};
const steps = workflow.jobs.merge.steps;
const restore = steps.find((s) => s.name === 'Restore the nights') as Step;
const merge = steps.find((s) => s.name === 'Merge the shards') as Step;
const save = steps.find((s) => s.name === 'Save the nights') as Step;

const spec = specOf({
  name: 'nightly',
  seeds: [1, 2],
  matrix: [
    { backend: 'redis', nemesis: 'none', fencing: 'on', expect: 'valid' },
    { backend: 'redis', nemesis: 'client-pause', fencing: 'off', expect: 'invalid' },
  ],
});
const cells = expandCells(spec);
const FLIPPED = 'redis/lock-set/client-pause/unfenced';

const work = mkdtempSync(join(tmpdir(), 'lockchaos-nights-'));
const cache = join(work, 'cache');
const bin = join(work, 'bin');

/** Shard i of 2 of night `date`, as `npx lockchaos campaign ... --shard i/2 --store store` leaves it. */
function writeShard(root: string, date: string, index: number, caught: boolean): void {
  const startedAt = `${date}T03:17:0${index}.000Z`;
  const stamp = startedAt.replace(/:/g, '-');
  const dir = join(root, `lockchaos-shard-${index}`, 'campaigns', 'nightly', `${stamp}-shard-${index}-of-2`);
  const mine = shardCells(cells, { index, count: 2 });
  const results = mine.map((cell) => {
    const valid = cell.nemesis === 'client-pause' ? !caught : true;
    const runDir = join(dir, 'runs', `00${cell.index + 1}-${cell.id.replace(/\//g, '-')}`, stamp);
    writeSyntheticRun(runDir, {
      backend: 'redis',
      nemesis: cell.nemesis,
      fencing: cell.fencing,
      seed: cell.seed,
      valid,
    });
    return {
      cell,
      ...judge(cell.expect, { valid, results: [] }),
      durationS: 20,
      dir: runDir,
      report: join(runDir, 'report.html'),
    };
  });
  const s: CampaignSummary = {
    name: 'nightly',
    source: 'lock/nightly.yaml',
    dir,
    shard: { index, count: 2 },
    totalCells: cells.length,
    startedAt,
    finishedAt: `${date}T03:40:00.000Z`,
    interrupted: false,
    state: 'finished',
    met: results.every((r) => r.met),
    cells: results,
    planned: mine.map((c) => ({ index: c.index, id: c.id, expect: c.expect })),
    allCells: cells.map((c) => ({ index: c.index, id: c.id, expect: c.expect })),
  };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'summary.json'), summaryJson(s));
}

/** One night of the merge job: restore, download, the merge step as written, save. Returns the job summary. */
function night(date: string, caught: boolean, env: Record<string, string> = {}): string {
  const job = join(work, `job-${date}`);
  mkdirSync(job);
  // actions/cache/restore: the newest saved store (restore-keys), none the first night.
  const path = restore.with?.path as string;
  if (existsSync(cache)) cpSync(cache, join(job, path), { recursive: true });
  // actions/download-artifact with pattern lockchaos-shard-* into shards/.
  for (const i of [1, 2]) writeShard(join(job, 'shards'), date, i, caught);
  const summary = join(job, 'step-summary.md');
  const r = spawnSync('bash', ['-e', '-c', merge.run as string], {
    cwd: job,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      ...Object.fromEntries(Object.entries(workflow.env).map(([k, v]) => [k, String(v)])),
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'team/locks',
      GITHUB_RUN_ID: date.replace(/-/g, ''),
      NO_COLOR: '1',
      ...env,
    },
  });
  // Exit 1 on the flip night: a configuration did not meet its expectation.
  expect(r.status, r.stderr).toBe(caught ? 0 : 1);
  // actions/cache/save of the same path.
  rmSync(cache, { recursive: true, force: true });
  cpSync(join(job, save.with?.path as string), cache, { recursive: true });
  return readFileSync(summary, 'utf8');
}

const summaries: string[] = [];
let served: StoreServer;
beforeAll(async () => {
  // npx lockchaos → the built CLI (npm test builds it first).
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'npx'),
    `#!/bin/sh\n[ "$1" = lockchaos ] || exit 127\nshift\nexec "${process.execPath}" "${join(packageRoot, 'dist/src/cli/main.js')}" "$@"\n`,
  );
  chmodSync(join(bin, 'npx'), 0o755);
  summaries.push(night('2026-11-28', true), night('2026-11-29', true), night('2026-11-30', false));
  served = await serveStore(cache, 0);
});
afterAll(async () => {
  await served?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the shipped workflow, three nights', () => {
  it('has the steps imitated here: restore, merge into the store, save', () => {
    expect(restore).toMatchObject({ uses: 'actions/cache/restore@v4', with: { path: 'nights' } });
    expect(save).toMatchObject({ uses: 'actions/cache/save@v4', with: { path: 'nights' } });
    expect(merge.run).toMatch(/--store nights --keep-nights "\$KEEP_NIGHTS"/);
  });

  it('leaves a store that serve shows with its three nights and the flip', async () => {
    const index = scanStore(cache);
    expect(index.problems).toEqual([]);
    expect(index.campaigns.map((c) => c.night)).toEqual(['2026-11-30', '2026-11-29', '2026-11-28']);
    const [trend] = index.trends;
    expect(trend?.nights).toEqual(['2026-11-28', '2026-11-29', '2026-11-30']);
    const flipped = trend?.rows.filter((r) => r.flipped).map((r) => r.configuration);
    expect(flipped).toEqual([FLIPPED]);
    const page = await (await fetch(served.url)).text();
    // Three nights a column each, and the flipped row first, marked.
    expect(page.match(/<th class="mark">/g)).toHaveLength(3);
    expect(page).toMatch(new RegExp(`<tr data-configuration="${FLIPPED}" class="flipped`));
  });

  it("writes a job summary by itself: the third night's names the flipped configuration", () => {
    expect(summaries[0]).toContain('## ✅ lockchaos campaign nightly: every cell met its expectation');
    expect(summaries[0]).not.toContain('### Flips since');
    expect(summaries[1]).toContain('No configuration changed its outcome since 2026-11-28.');
    const third = summaries[2] as string;
    expect(third).toContain('## ❌ lockchaos campaign nightly: 2 of 4 cells did not meet their expectation');
    expect(third).toContain(`| \`${FLIPPED}\` | invalid | ● met (2 of 2) | ✕ not met (0 of 2) |`);
    expect(third).toMatch(
      new RegExp(
        `\\| \`${FLIPPED}\` \\| 1 \\| invalid \\| valid \\| expected invalid, got valid[^|]*\\| \`runs/[^\`]+/report\\.html\` in \\[the artifact\\]\\(https://github\\.com/team/locks/actions/runs/20261130#artifacts\\) \\|`,
      ),
    );
  });

  it("writes the third night's summary.html saying it was merged and what flipped, as the job summary does", () => {
    const page = readFileSync(
      join(cache, 'campaigns', 'nightly', '2026-11-30T03-17-01.000Z-merged', 'summary.html'),
      'utf8',
    );
    expect(page).toContain(' · merged from 2 shards (campaign merge)</p>');
    expect(page).toContain('<h2>Flips since 2026-11-29</h2>');
    expect(page).toContain(
      `<tr><td><code>${FLIPPED}</code></td><td>invalid</td><td class="m-met">● met (2 of 2)</td><td class="m-not-met">✕ not met (0 of 2)</td></tr>`,
    );
    expect(page).toMatch(
      /<section id="misses"><h2>Did not meet their expectation<\/h2><ul class="misses"><li><a href="runs\/[^"]+\/report\.html">#\d+ redis\/lock-set\/client-pause\/unfenced\/seed-\d<\/a>: /,
    );
  });

  it('prunes past the limit it is given: a fourth night with KEEP_NIGHTS=3 drops the first', () => {
    night('2026-12-01', true, { KEEP_NIGHTS: '3' });
    const kept = readdirSync(join(cache, 'campaigns', 'nightly')).sort();
    expect(kept).toEqual([
      '2026-11-29T03-17-01.000Z-merged',
      '2026-11-30T03-17-01.000Z-merged',
      '2026-12-01T03-17-01.000Z-merged',
    ]);
  });
});
