import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { compiledBeside } from './paths.js';
import { threadAnswer } from './thread-answer.js';
import { YIELDING_NICE } from './yield-cpu.js';

describe('yieldCpu', () => {
  it.runIf(process.platform === 'linux')('lowers the calling thread only, not the process', async () => {
    const module = compiledBeside(import.meta.url, './yield-cpu.js');
    expect(module).toBeDefined();
    const source = [
      `import { getPriority } from 'node:os';`,
      `import { parentPort } from 'node:worker_threads';`,
      `import { yieldCpu } from ${JSON.stringify(String(module))};`,
      'yieldCpu();',
      'parentPort.postMessage(getPriority());',
    ].join('\n');
    const before = getPriority();
    const url = new URL(`data:text/javascript,${encodeURIComponent(source)}`);
    const seen = await threadAnswer<number, number>(url, {}, undefined, (answer) => ({ answer }));
    expect(seen).toBe(Math.min(19, before + YIELDING_NICE));
    expect(getPriority()).toBe(before);
  });
});
