/**
 * A command run again under node flags, for real: a script that re-runs itself through
 * rerunWithNodeFlags (the compiled one in dist/: npm test builds it first).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childExecArgv } from './rerun-with-node-flags.js';

const rerun = new URL('../../dist/src/cli/rerun-with-node-flags.js', import.meta.url).href;
const dir = mkdtempSync(join(tmpdir(), 'lockchaos-rerun-'));
const script = join(dir, 'script.mjs');
// Under the flag: print what it runs with, then wait (`sleep`) or exit 7. Without: run again.
writeFileSync(
  script,
  `import { rerunWithNodeFlags } from ${JSON.stringify(rerun)};
if (process.execArgv.includes('--single-threaded-gc')) {
  console.log(JSON.stringify({ execArgv: process.execArgv, args: process.argv.slice(2) }));
  if (process.argv[2] === 'sleep') setTimeout(() => {}, 60_000);
  else process.exitCode = 7;
} else {
  process.exitCode = await rerunWithNodeFlags(['--single-threaded-gc']);
}
`,
);

function run(args: string[], onOutput?: (pid: number) => void) {
  const child = spawn(process.execPath, ['--no-warnings', script, ...args]);
  let stdout = '';
  child.stdout.on('data', (d) => {
    if (stdout === '') onOutput?.(child.pid as number);
    stdout += d;
  });
  return new Promise<{ code: number | null; stdout: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout })),
  );
}

describe('rerunWithNodeFlags', () => {
  it('runs the command again with the flags, its own flags and arguments, and exits with its code', async () => {
    const r = await run(['a', '--b']);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toEqual({ execArgv: ['--single-threaded-gc', '--no-warnings'], args: ['a', '--b'] });
  });

  it('passes a SIGTERM on to the command, and exits as it did', async () => {
    const r = await run(['sleep'], (pid) => process.kill(pid, 'SIGTERM'));
    expect(r.code).toBe(128 + 15);
    expect(JSON.parse(r.stdout).args).toEqual(['sleep']);
  });
});

describe('childExecArgv', () => {
  it("keeps this node's flags but the debugger's, whose port this node holds", () => {
    expect(
      childExecArgv([
        '--no-warnings',
        '--inspect',
        '--inspect-brk=0.0.0.0:9230',
        '--inspect-port',
        '9231',
        '--debug-port=9232',
        '--import',
        './x.mjs',
        '--max-old-space-size=4096',
      ]),
    ).toEqual(['--no-warnings', '--import', './x.mjs', '--max-old-space-size=4096']);
  });

  it("keeps flags whose names only begin like the debugger's", () => {
    expect(childExecArgv(['--inspector-x', '--debugger'])).toEqual(['--inspector-x', '--debugger']);
  });
});
