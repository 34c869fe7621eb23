import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

describe('regainCpuOf', () => {
  it.runIf(process.platform === 'linux' && process.getuid?.() === 0)(
    "takes back every thread of a group's processes, the children they started too",
    async () => {
      const { regainCpuOf } = await import('./yield-cpu.js');
      const { groupMembers } = await import('./process-group.js');
      // A group of its own started at the yielded value: a shell and the node it forks, whose
      // threads (libuv's, V8's) inherit it.
      const base = getPriority();
      const child = spawn(
        'sh',
        [
          '-c',
          `renice -n ${YIELDING_NICE} -p $$ >/dev/null; exec sh -c '${process.execPath} -e "setTimeout(() => {}, 60000)" & wait'`,
        ],
        { detached: true, stdio: 'ignore' },
      );
      const pgid = child.pid ?? 0;
      const nicesOfGroup = () =>
        readdirSync('/proc')
          .filter((e) => /^\d+$/.test(e))
          .flatMap((pid) => {
            try {
              const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
              if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) return [];
              return readdirSync(`/proc/${pid}/task`).map((t) =>
                Number(readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8').split(') ')[1].split(' ')[16]),
              );
            } catch {
              return [];
            }
          });
      try {
        // Until the node under the shell is up with its threads (more than the two shells).
        for (let i = 0; i < 100 && nicesOfGroup().length < 4; i++) await new Promise((r) => setTimeout(r, 50));
        const yielded = nicesOfGroup();
        expect(yielded.length).toBeGreaterThan(3);
        expect(yielded.every((n) => n === Math.min(19, base + YIELDING_NICE))).toBe(true);
        regainCpuOf(
          groupMembers(pgid).map((m) => m.pid),
          base,
        );
        expect(nicesOfGroup().every((n) => n === base)).toBe(true);
      } finally {
        process.kill(-pgid, 'SIGKILL');
      }
    },
  );
});
