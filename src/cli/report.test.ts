/**
 * `lockchaos report store/latest`, the README's own step: the files it rebuilds name the
 * run itself (its header and replay commands), not the link, which names another run after
 * the next night; it says what it rewrites; --json gives the same as data. The built CLI
 * (dist/, which npm test builds first), in a store laid out as a run leaves it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { runFolder } from '../../test/unit/run-folder-fixture.js';

const CLI = new URL('../../dist/src/cli/main.js', import.meta.url).pathname;
const L = 'lockchaos:lock';

/** <work>/store/<test>/<stamp>/ and store/latest → it, as `lockchaos run` leaves them. */
function store(): { work: string; run: string } {
  const work = mkdtempSync(join(tmpdir(), 'lockchaos-report-'));
  const run = join('store', 'redlock-lock-set-client-pause-unfenced', '2026-12-01T10-00-00.000Z');
  mkdirSync(join(work, run), { recursive: true });
  cpSync(runFolder(toJsonl(new H().acquire(0, undefined, L).release(0, L).ops)), join(work, run), { recursive: true });
  symlinkSync('redlock-lock-set-client-pause-unfenced/2026-12-01T10-00-00.000Z', join(work, 'store', 'latest'));
  return { work, run };
}

const report = (cwd: string, ...args: string[]) =>
  spawnSync(process.execPath, [CLI, 'report', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });

describe('lockchaos report store/latest', () => {
  it('writes the run itself into report.html, not the link, and says it rebuilds the two files', () => {
    const { work, run } = store();
    const r = report(work, 'store/latest');
    // No results.json: checked here on what was recorded (an incomplete run: unknown, 2).
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toContain(`rebuilding report.html and junit.xml in ${run} (store/latest leads there)\n`);
    const html = readFileSync(join(work, run, 'report.html'), 'utf8');
    expect(html).toContain(run);
    expect(html).not.toContain('store/latest');
    expect(r.stdout).toContain(`report: ${join(run, 'report.html')}`);
  });

  it('--no-color takes the colour out even where FORCE_COLOR puts it in', () => {
    const { work } = store();
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '1' };
    delete env.NO_COLOR;
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CLI, 'report', 'store/latest', ...args], { cwd: work, encoding: 'utf8', env })
        .stdout;
    expect(run()).toContain('\x1b[');
    expect(run('--no-color')).not.toContain('\x1b[');
  });

  it('--json: one object with the verdict, the folder and the files', () => {
    const { work, run } = store();
    const r = report(work, 'store/latest', '--json');
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      verdict: 'unknown',
      exitCode: r.status,
      dir: run,
      files: { report: join(run, 'report.html'), junit: join(run, 'junit.xml') },
    });
    expect(typeof out.headline).toBe('string');
    expect(typeof out.lockchaos).toBe('string');
  });
});
