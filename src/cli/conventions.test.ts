/**
 * Command-line conventions (issue 29): did-you-mean in one line and exit 3, `help <command>`,
 * `-v`, and `run --json`'s object. The CLI is the built one (dist/, as `npm test` builds it
 * first); nothing here starts Docker: every command given stops at its arguments.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../run-data/config.js';
import type { RunResult } from '../runner/run.js';
import { version } from '../version.js';
import { runJson } from './run-json.js';

const main = fileURLToPath(new URL('../../dist/src/cli/main.js', import.meta.url));
const cli = (...args: string[]) => {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe('the command line', () => {
  it('names the flag a typo meant, in one line, exit 3', () => {
    const r = cli('run', '--nemesiss', 'x');
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "lockchaos run: unknown option '--nemesiss': did you mean --nemesis? (see lockchaos run --help)\n",
    );
    expect(cli('sweep', '--pause-tll', '1').stderr).toContain('did you mean --pause-ttl?');
  });

  it("says a missing value, a switch given one, and a stray argument in its own words, not the parser's", () => {
    const cases: [string[], string][] = [
      [['run', '--ttl'], 'lockchaos run: --ttl needs a value: --ttl VALUE (see lockchaos run --help)'],
      [
        ['serve', 'store'],
        "lockchaos serve: unexpected argument 'store': lockchaos serve takes options only (a value goes after its --flag) (see lockchaos serve --help)",
      ],
      [
        ['run', '--no-build=yes'],
        'lockchaos run: --no-build is a switch and takes no value: give --no-build alone (see lockchaos run --help)',
      ],
    ];
    for (const [args, line] of cases) {
      const r = cli(...args);
      expect(r.code, args.join(' ')).toBe(3);
      expect(r.stderr).toBe(`${line}\n`);
    }
  });

  it('scenarios --json is one stamped object, not a bare array; run --help shows examples that parse', () => {
    const r = cli('scenarios', '--json');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ lockchaos: version, schema: 1 });
    expect(out.scenarios.map((s: { name: string }) => s.name)).toContain('gc-pause');
    const help = cli('run', '--help').stdout;
    const examples = [...help.matchAll(/^ {2}lockchaos run (.+?)(?: {2,}.*)?$/gm)].map((m) =>
      (m[1] as string).split(' '),
    );
    expect(examples.length).toBeGreaterThanOrEqual(3);
    // Each example's flags are ones run takes: with --help added, it parses and prints the help.
    for (const args of examples) expect(cli('run', ...args, '--help').code, args.join(' ')).toBe(0);
  });

  it('names the command, backend and nemesis kind a typo meant', () => {
    const command = cli('campain');
    expect(command.code).toBe(3);
    expect(command.stderr).toMatch(
      /^lockchaos: unknown command 'campain': did you mean campaign\? Choose one of run, /,
    );
    const backend = cli('run', '--backend', 'redlok', '--no-build');
    expect(backend.code).toBe(3);
    expect(backend.stderr).toMatch(/unknown backend 'redlok': did you mean redlock\?/);
    const kind = cli('run', '--nemesis', 'clinet-pause');
    expect(kind.stderr).toMatch(
      /unknown nemesis 'clinet-pause' .*: did you mean client-pause\? Choose none or some of/,
    );
    expect(kind.stderr.trim().split('\n')).toHaveLength(1);
    expect(cli('run', '--scenario', 'gc-paus').stderr).toMatch(/unknown scenario 'gc-paus': did you mean gc-pause\?/);
  });

  it('bounds client-check --init-timeout before it starts anything', () => {
    for (const [value, line] of [
      ['0', "--init-timeout takes a number > 0, got '0'"],
      ['3601', "--init-timeout takes at most 3600 seconds, got '3601'"],
    ] as const) {
      const r = cli('client-check', '--init-timeout', value, '--', 'python3', 'client.py');
      expect(r.code).toBe(3);
      expect(r.stderr.trim().split('\n')).toEqual([`lockchaos client-check: ${line}`]);
    }
  });

  it('prints a command help with help <command>, and the version with -v', () => {
    const help = cli('help', 'run');
    expect(help.code).toBe(0);
    expect(help.stdout).toBe(cli('run', '--help').stdout);
    expect(help.stdout).toMatch(/^Usage: lockchaos run \[options\]/);
    expect(help.stdout).toMatch(/^ {2}--json {4}/m);
    expect(cli('help', 'serve').stdout).toMatch(/^Usage: lockchaos serve /);
    expect(cli('help').stdout).toMatch(/lockchaos help <command>/);
    expect(cli('-v')).toMatchObject({ code: 0, stdout: `${version}\n` });
    expect(cli('--version').stdout).toBe(`${version}\n`);
  });
});

describe('run --json', () => {
  it('is one object with the version, the verdict, the files and each checker in one line', () => {
    const result = {
      dir: 'store/t/1',
      config: { ...DEFAULTS, name: 't', seed: 9 },
      valid: false,
      results: [
        {
          checker: 'mutual-exclusion',
          valid: false,
          counts: true,
          summary: '2 overlapping holds',
          details: { big: 1 },
        },
      ],
      conditions: [],
      history: [],
      timings: { totalS: 3, clusterS: 1 },
    } as unknown as RunResult;
    const json = JSON.parse(JSON.stringify(runJson(result, 1)));
    expect(Object.keys(json).slice(0, 4)).toEqual(['lockchaos', 'schema', 'verdict', 'exitCode']);
    expect(json).toMatchObject({ lockchaos: version, schema: 1, verdict: 'invalid', exitCode: 1, seed: 9 });
    expect(json.files['report.html']).toBe('store/t/1/report.html');
    expect(json.checkers).toEqual([
      { checker: 'mutual-exclusion', valid: false, counts: true, summary: '2 overlapping holds' },
    ]);
    expect(json.headline).toBeUndefined();
    const headline = 'Process 0 paused for 1.21 s (client-pause) outlived its lease; process 2 acquired.';
    expect(runJson({ ...result, headline }, 1)).toMatchObject({ verdict: 'invalid', exitCode: 1, headline });
  });
});

describe('--json on the commands that run campaigns', () => {
  it('prints one object with the version, with --dry-run too (no Docker)', () => {
    const sweep = cli('sweep', '--backend', 'redis', '--pause-ttl', '0.5,1', '--trials', '2', '--dry-run', '--json');
    expect(sweep.code).toBe(0);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ lockchaos: version, schema: 1, runs: 4 });
    const bench = cli('bench', '--backend', 'redis', '--concurrency', '1,8', '--jitter', '25', '--dry-run', '--json');
    expect(JSON.parse(bench.stdout).points).toEqual([
      { backend: 'redis', concurrency: 1, jitterMs: 25 },
      { backend: 'redis', concurrency: 8, jitterMs: 25 },
    ]);
    expect(bench.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('the version in the JSON files', () => {
  it('test.json carries it first, and reading it back leaves it out of the configuration', async () => {
    const { parseTestJson, testJsonText } = await import('../run-data/run-folder.js');
    const text = testJsonText({ ...DEFAULTS, name: 't', seed: 3 });
    expect(Object.keys(JSON.parse(text)).slice(0, 2)).toEqual(['lockchaos', 'schema']);
    const back = parseTestJson(text, 'test.json').config as unknown as Record<string, unknown>;
    expect(back.lockchaos).toBeUndefined();
    expect(back.schema).toBeUndefined();
    expect(back.seed).toBe(3);
  });
});

describe('the commands pages print', () => {
  it('say npx lockchaos where the package is a dependency, lockchaos in a checkout', async () => {
    const { cliCommandFor } = await import('../util/paths.js');
    expect(cliCommandFor('/home/me/app/node_modules/lockchaos')).toBe('npx lockchaos');
    expect(cliCommandFor('C:\\app\\node_modules\\lockchaos')).toBe('npx lockchaos');
    expect(cliCommandFor('/work/lockchaos')).toBe('lockchaos');
  });
});
