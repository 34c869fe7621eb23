import { execFileSync } from 'node:child_process';
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

describe('regainCpu', () => {
  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)(
    'takes every thread back, also those started while it yielded',
    () => {
      const module = compiledBeside(import.meta.url, './yield-cpu.js');
      expect(module).toBeDefined();
      // A child process: it yields, starts a thread (which takes the yielded value), then
      // takes its priority back; the nice value of each of its threads, from /proc.
      const source = [
        `import { readdirSync, readFileSync } from 'node:fs';`,
        `import { getPriority } from 'node:os';`,
        `import { Worker } from 'node:worker_threads';`,
        `import { mayRegainCpu, regainCpu, yieldCpu } from ${JSON.stringify(String(module))};`,
        'const nices = () => readdirSync("/proc/self/task").map((t) => Number(readFileSync("/proc/self/task/" + t + "/stat", "utf8").split(") ")[1].split(" ")[16]));',
        'const base = getPriority();',
        'yieldCpu();',
        'const thread = new Worker("setInterval(() => {}, 1000)", { eval: true });',
        'await new Promise((r) => thread.once("online", r));',
        'const yielded = nices();',
        'regainCpu(base);',
        'console.log(JSON.stringify({ may: mayRegainCpu(), base, yielded, regained: nices() }));',
        'await thread.terminate();',
      ].join('\n');
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', source], { encoding: 'utf8' });
      const { may, base, yielded, regained } = JSON.parse(out) as {
        may: boolean;
        base: number;
        yielded: number[];
        regained: number[];
      };
      expect(may).toBe(true);
      // The thread started while yielded has the yielded value; afterwards none has.
      expect(yielded.filter((n) => n === Math.min(19, base + YIELDING_NICE)).length).toBeGreaterThan(1);
      expect(regained.every((n) => n === base)).toBe(true);
    },
  );
});
