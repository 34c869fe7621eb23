/**
 * interruptibleReport from the TypeScript sources alone (no dist/: a checkout not built):
 * the report is built on the calling thread, the same report, its steps named the same.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { H } from '../../test/unit/history-builder.js';
import { toJsonl } from '../../test/unit/history-writers.js';
import { runFolder } from '../../test/unit/run-folder-fixture.js';
import { interruptibleReport } from './report-on-thread.js';

vi.mock('../util/paths.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../util/paths.js')>()),
  compiledBeside: vi.fn(() => undefined),
}));

describe('interruptibleReport without a compiled thread', () => {
  it('builds report.html on this thread, saying writing once', async () => {
    const said: string[] = [];
    const L = 'lockchaos:lock';
    const dir = runFolder(toJsonl(new H().acquire(0, undefined, L).release(0, L).ops));
    const built = await interruptibleReport(dir, new AbortController().signal, { writing: () => said.push('writing') });
    expect(built && existsSync(built.reportPath)).toBe(true);
    expect(built?.run.operations).toBe(4);
    expect(said).toEqual(['writing']);
  });
});
