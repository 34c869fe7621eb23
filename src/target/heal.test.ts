import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ownerLabel } from '../cluster/labels.js';
import { STALE_S } from './commands.js';
import { judgeRun } from './heal.js';

describe("cleanup --target's judgement of a run found on a host", () => {
  it("never heals a live run of this machine's; heals one whose runner is gone at once", () => {
    expect(judgeRun({ ageS: 999, owner: ownerLabel() }, 'orphaned')).toBe('live');
    expect(judgeRun({ ageS: 0, owner: `${hostname()}:999999999:1` }, 'orphaned')).toBe('heal');
  });
  it("watches another machine's run heard from lately, heals one gone quiet, and one with no record", () => {
    expect(judgeRun({ ageS: STALE_S, owner: 'ci-job-1:12:34' }, 'orphaned')).toBe('watch');
    expect(judgeRun({ ageS: STALE_S + 1, owner: 'ci-job-1:12:34' }, 'orphaned')).toBe('heal');
    expect(judgeRun({}, 'orphaned')).toBe('heal');
  });
  it('heals every run with --all', () => {
    expect(judgeRun({ ageS: 0, owner: ownerLabel() }, 'all')).toBe('heal');
  });
});
