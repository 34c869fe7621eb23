import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { specOf } from '../../test/unit/campaign-plan.js';
import { expandCells } from '../campaign/matrix.js';
import { OPTION_FIELDS } from '../campaign/spec.js';
import { configFromArgs, runCommand } from '../cli/run.js';
import { STORE_KEY } from '../datastore/keys.js';
import { rerunCommands } from '../report/rerun-commands.js';
import { UserError } from '../util/errors.js';
import type { TestConfig } from './config.js';
import { DEFAULTS, PARAMETER_LIST } from './parameters.js';
import { validateConfig } from './resolve.js';
import { parseTestJson, rerunConfig, testJsonText } from './run-folder.js';

const parse = (args: string[]) => {
  const p = configFromArgs(args);
  if (p === 'help') throw new Error('help');
  return p.config;
};

afterEach(() => vi.restoreAllMocks());

describe('the run parameters table', () => {
  it('has one flag per row, and DEFAULTS are its defaults', () => {
    const flags = PARAMETER_LIST.map((p) => p.flag);
    expect(new Set(flags).size).toBe(flags.length);
    expect(DEFAULTS).toEqual(
      Object.fromEntries(PARAMETER_LIST.filter((p) => p.default !== undefined).map((p) => [p.field, p.default])),
    );
  });

  it('is what lockchaos run --help lists, in its order', async () => {
    const out: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => out.push(line));
    expect(await runCommand(['--help'])).toBe(0);
    const help = out.join('\n');
    const at = PARAMETER_LIST.map((p) => help.indexOf(`\n  --${p.flag}${p.arg ? ` ${p.arg}` : ''} `));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(help).toContain(`(default ${DEFAULTS.timeLimitS})`);
  });

  it('is what a campaign file takes as options: every row but the axes and what the campaign sets', () => {
    expect(Object.keys(OPTION_FIELDS)).toEqual(PARAMETER_LIST.filter((p) => p.campaign !== false).map((p) => p.flag));
    for (const axis of ['backend', 'workload', 'nemesis', 'fencing', 'scenario', 'seed', 'store', 'name', 'schedule']) {
      expect(OPTION_FIELDS).not.toHaveProperty(axis);
    }
  });

  it('round-trips: the re-run command of a configuration parses back to it', () => {
    // A value of every row's type, none the default (the scenario and schedule are given apart).
    const config = { name: 'mine', seed: 7 } as Record<string, unknown>;
    for (const p of PARAMETER_LIST) {
      if (p.field === 'scenario' || p.field === 'schedule' || p.field in config) continue;
      config[p.field] = p.type === 'number' ? 7 : p.type === 'string' ? `v-${p.flag}` : true;
    }
    // Paths are recorded located, as a replay from another folder needs them.
    config.clientDir = resolve('v-client-dir');
    const { flags, unmapped } = rerunCommands('/r', config as unknown as TestConfig);
    expect(unmapped).toEqual([]);
    expect(parse(flags.split(' ').slice(2))).toEqual(config);
  });

  it('checks what a stored test.json holds by the rows: an optional field of the wrong type is refused', () => {
    const stored = { ...DEFAULTS, name: 't', seed: 1 };
    const parse = (data: object) => parseTestJson(JSON.stringify(data), 'test.json');
    // Written before the store key was recorded: the one key runs have always used.
    expect(parse(stored)).toEqual({ config: stored, recorded: { storeKey: STORE_KEY } });
    expect(parseTestJson(testJsonText(stored as TestConfig), 'test.json')).toEqual({
      config: stored,
      recorded: { storeKey: STORE_KEY },
    });
    // Written before the recorded section: the store key and the faults applied beside the parameters.
    const fault = { kind: 'client-pause', atMs: 10, durationMs: 20, seed: 1 };
    expect(parse({ ...stored, storeKey: 'k', schedule: [fault] }).recorded).toEqual({
      storeKey: 'k',
      schedule: [fault],
    });
    expect(() => parse({ ...stored, storeKey: 7 })).toThrow(
      new UserError(`'test.json' is not a test configuration: storeKey: 7 is not a string`),
    );
    // Now: in a section of their own, the parameters apart (a replay applies the recorded faults).
    const now = parseTestJson(testJsonText(stored as TestConfig, { storeKey: 'k', schedule: [fault] }), 'test.json');
    expect(now).toEqual({ config: stored, recorded: { storeKey: 'k', schedule: [fault] } });
    expect(rerunConfig(now).schedule).toEqual([fault]);
    expect(() => parse({ ...stored, recorded: { storeKey: 7 } })).toThrow(
      new UserError(`'test.json' is not a test configuration: recorded.storeKey: 7 is not a string`),
    );
    expect(() => parse({ ...stored, loseData: 'yes' })).toThrow(
      new UserError(`'test.json' is not a test configuration: loseData: "yes" is not a boolean`),
    );
    expect(() => parse({ ...stored, nodes: '5' })).toThrow(/nodes: "5" is not a number$/);
    expect(() => parse({ ...stored, seed: undefined })).toThrow(/seed: missing$/);
  });

  it('holds every number to its bounds, named by its flag', () => {
    for (const p of PARAMETER_LIST) {
      if (p.type !== 'number' || !p.bounds) continue;
      const config = { ...DEFAULTS, name: 't', seed: 1, [p.field]: p.bounds.max * 2 } as TestConfig;
      expect(() => validateConfig(config)).toThrow(new RegExp(`^--${p.flag} must be (at most|from) `));
    }
  });
});

describe('a scenario, from the command line and in a campaign', () => {
  it('gives the same run parameters: one resolveScenario', () => {
    for (const scenario of ['gc-pause', 'redlock-clock-jump', 'redis-restart-amnesia', 'control']) {
      const { name: _cli, ...cli } = parse(['--scenario', scenario, '--seed', '1']);
      // --full-time: run as the command line runs it, not stopped at its first violation.
      const [cell] = expandCells(specOf({ seeds: [1], matrix: [{ scenario, fencing: 'off' }] }), { fullTime: true });
      const { name: _cell, ...fromCampaign } = cell?.config ?? ({} as TestConfig);
      expect(cli).toEqual(fromCampaign);
      expect(cli.scenario).toBe(scenario);
    }
  });

  it('refuses a backend the story does not run on, each in its own words', () => {
    expect(() => parse(['--scenario', 'gc-pause', '--backend', 'redlock'])).toThrow(
      /^scenario gc-pause runs on redis, etcd, zookeeper, not --backend redlock$/,
    );
    expect(() => specOf({ seeds: [1], matrix: [{ scenario: 'gc-pause', backend: 'redlock' }] })).toThrow(
      /matrix\[0\]\.backend: scenario "gc-pause" runs backend redis or etcd or zookeeper, not redlock: leave backend out/,
    );
    expect(() => parse(['--scenario', 'nope'])).toThrow(/^unknown scenario 'nope': choose one of gc-pause, /);
  });
});
