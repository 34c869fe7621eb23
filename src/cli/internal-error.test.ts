/**
 * An internal error (no UserError: a bug, not bad input) says where to report it: the
 * issues of the project, read from package.json's `bugs`, so that a user of the npm
 * package knows where to go. For real, with the built CLI (npm test builds it first): a
 * run folder whose report.html is a folder makes `report`'s write fail where no check
 * looks for it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { runFolder } from '../../test/unit/run-folder-fixture.js';
import { packageRoot } from '../util/paths.js';
import { reportBugLine } from './internal-error.js';

const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
const CLI = join(packageRoot, 'dist/src/cli/main.js');

describe('an internal error', () => {
  it("names package.json's bugs URL and the version", () => {
    expect(pkg.bugs.url).toBe('https://github.com/lockchaos/lockchaos/issues');
    expect(reportBugLine()).toBe(
      `this is a bug in lockchaos ${pkg.version}: please report it at https://github.com/lockchaos/lockchaos/issues, with the command and the lines above`,
    );
  });

  it('ends with that line, exit 3', () => {
    const dir = runFolder(toJsonl(new H().acquire(0, undefined, 'lockchaos:lock').release(0, 'lockchaos:lock').ops));
    rmSync(join(dir, 'report.html'), { force: true });
    mkdirSync(join(dir, 'report.html', 'in-the-way'), { recursive: true });
    const r = spawnSync(process.execPath, [CLI, 'report', dir], { encoding: 'utf8' });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/^lockchaos report: internal error: Error: EISDIR/m);
    expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(reportBugLine());
  });
});
