/** Each test of the file with a state folder of its own (LOCKCHAOS_STATE_DIR), the one before put back after. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export function freshStateDirs(): void {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.LOCKCHAOS_STATE_DIR;
    process.env.LOCKCHAOS_STATE_DIR = mkdtempSync(join(tmpdir(), 'lockchaos-state-'));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.LOCKCHAOS_STATE_DIR;
    else process.env.LOCKCHAOS_STATE_DIR = saved;
  });
}
