import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compiledBeside } from './paths.js';
import { cpuV1Mount, removeIdleSideCpuGroups, SIDE_CPU_SHARES, sideCpuGroupPath } from './side-cpu-group.js';
import { threadAnswer } from './thread-answer.js';

const HYBRID = [
  'tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0',
  'cgroup /sys/fs/cgroup/cpuacct cgroup rw,relatime,cpuacct 0 0',
  'cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0',
  'cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0',
].join('\n');

describe('cpuV1Mount', () => {
  it("finds the hierarchy with the cpu controller, not cpuacct's", () => {
    expect(cpuV1Mount(HYBRID)).toBe('/sys/fs/cgroup/cpu');
    expect(cpuV1Mount('cgroup /sys/fs/cgroup/cpu,cpuacct cgroup rw,cpu,cpuacct 0 0')).toBe(
      '/sys/fs/cgroup/cpu,cpuacct',
    );
  });
  it('finds none on a cgroup v2 host', () => {
    expect(cpuV1Mount('cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0')).toBeUndefined();
  });
});

/** The cpu controller's group in a /proc/<task>/cgroup text. */
const cpuGroupIn = (cgroupFile: string) => /^\d+:cpu(?:,[a-z]+)*:(.*)$/m.exec(cgroupFile)?.[1];

describe('joinSideCpuGroup', () => {
  const group = sideCpuGroupPath();
  it.runIf(group !== undefined && process.getuid?.() === 0)(
    'moves the calling thread and those it starts, not the process, and the empty group goes',
    async () => {
      const module = compiledBeside(import.meta.url, './side-cpu-group.js');
      expect(module).toBeDefined();
      // A thread joins, then starts a thread of its own; each reads its own cgroup file while
      // it lives (read after, a thread that has ended has no /proc entry).
      const source = [
        `import { readFileSync } from 'node:fs';`,
        `import { parentPort, Worker } from 'node:worker_threads';`,
        `import { joinSideCpuGroup } from ${JSON.stringify(String(module))};`,
        `const mine = () => readFileSync('/proc/thread-self/cgroup', 'utf8');`,
        'const joined = joinSideCpuGroup();',
        `const child = new Worker("import { parentPort } from 'node:worker_threads'; import { readFileSync } from 'node:fs'; parentPort.postMessage(readFileSync('/proc/thread-self/cgroup', 'utf8'));", { eval: true });`,
        `child.once('message', (task) => { parentPort.postMessage({ joined, task: mine(), child: task }); child.terminate(); });`,
      ].join('\n');
      const url = new URL(`data:text/javascript,${encodeURIComponent(source)}`);
      type Seen = { joined: boolean; task: string; child: string };
      const seen = await threadAnswer<Seen, Seen>(url, {}, undefined, (answer) => ({ answer }));
      const name = `/${(group as string).split('/').pop()}`;
      expect(seen?.joined).toBe(true);
      expect(cpuGroupIn(seen?.task as string)).toBe(name);
      expect(cpuGroupIn(seen?.child as string)).toBe(name);
      expect(cpuGroupIn(readFileSync('/proc/thread-self/cgroup', 'utf8'))).not.toBe(name);
      expect(readFileSync(`${group}/cpu.shares`, 'utf8').trim()).toBe(String(SIDE_CPU_SHARES));
      // Both threads have ended: the group is empty, and the sweep removes it.
      for (let i = 0; i < 100 && existsSync(group as string); i++) {
        removeIdleSideCpuGroups();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(existsSync(group as string)).toBe(false);
    },
  );
});
