/**
 * npm test's arguments (scripts/vitest-args.ts): the run is split into the two projects'
 * processes unless the arguments choose the files themselves, as vitest's parser reads them.
 */
import { describe, expect, it } from 'vitest';
import { choosesFiles } from '../../scripts/vitest-args.js';

describe('choosesFiles', () => {
  it("is false for CI's report flags, given with '=' or apart", () => {
    expect(choosesFiles([])).toBe(false);
    expect(
      choosesFiles(['--reporter=default', '--reporter=json', '--outputFile.json=test-artifacts/vitest.json']),
    ).toBe(false);
    expect(choosesFiles(['--reporter', 'json', '--outputFile.json', 'test-artifacts/vitest.json'])).toBe(false);
  });

  it("never takes a flag's value for a file filter, whichever flag", () => {
    expect(choosesFiles(['-t', 'clock', '--maxWorkers', '1'])).toBe(false);
    // Flags a fixed list of valued flags lacked: their values read as file filters.
    expect(choosesFiles(['--shard', '1/2'])).toBe(false);
    expect(choosesFiles(['--bail', '3', '--retry', '2', '--testTimeout', '9000'])).toBe(false);
  });

  it('is true for a file filter or a project, in any place', () => {
    expect(choosesFiles(['clock-warp'])).toBe(true);
    expect(choosesFiles(['--reporter', 'json', 'test/unit/names.test.ts'])).toBe(true);
    expect(choosesFiles(['--bail', '1', 'clock-warp'])).toBe(true);
    expect(choosesFiles(['--project', 'unit'])).toBe(true);
    expect(choosesFiles(['--project=integration'])).toBe(true);
  });

  it('leaves help and arguments vitest refuses to one plain vitest run', () => {
    expect(choosesFiles(['--help'])).toBe(true);
    expect(choosesFiles(['--silent=maybe'])).toBe(true);
  });
});
