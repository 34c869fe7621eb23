import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_LISTING, hostScripts, listedRuns, processStates } from './commands.js';

/** A script run here as on a host: its exit code and its output. */
function sh(script: string): { code: number; out: string } {
  try {
    return {
      code: 0,
      out: execFileSync('sh', ['-c', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
    };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

const uid = process.getuid?.() ?? 0;
const dir = `/var/tmp/lockchaos-${uid}`;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
/** A process of `sh -c command`, and its pid once it runs. */
async function started(command: string) {
  const child = spawn('sh', ['-c', command], { stdio: 'ignore' });
  children.push(child);
  await new Promise((r) => setTimeout(r, 200));
  return child.pid as number;
}
const tag = (what: string) => `${what}${process.pid.toString(16)}`.replace(/[^0-9a-f]/g, '');

describe.runIf(process.platform === 'linux')("a host's scripts, run here", () => {
  it('tell a zombie from a live process: the probe finds none, start starts the service', async () => {
    // `sleep 0` exits and its parent (exec'd into a sleep) never reaps it: a zombie, as under
    // a PID 1 that does not reap.
    const parent = await started('sleep 0 & exec sleep 30');
    const zombie = execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' }).trim();
    expect(sh(`cut -d' ' -f3 /proc/${zombie}/stat`).out.trim()).toBe('Z');
    const out = mkdtempSync(join(tmpdir(), 'lcx-start-'));
    try {
      const s = hostScripts(tag('a1'), { process: `echo ${zombie}`, start: `touch ${out}/started` });
      const probe = sh(s.probe);
      expect(probe.code).toBe(3);
      expect(probe.out).toMatch(/only dead processes \(zombies, state Z/);
      // The start runs (the zombie is no service), and says the service did not come up.
      const start = sh(s.start.replace('n -lt 100', 'n -lt 2'));
      expect(sh(`ls ${out}`).out).toContain('started');
      expect(start.code).toBe(5);
      expect(start.out).toMatch(/the service did not start: no live process found by: echo \d+/);
      expect(sh(s.heal.replace('n -ge 100', 'n -ge 1')).code).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('a resume checks its effect: a process left stopped is exit 5 naming it, and the heal says what is left', async () => {
    const pid = await started('exec sleep 30');
    const s = hostScripts(tag('b2'), { process: `echo ${pid}` });
    expect(processStates(sh(s.pause).out)).toEqual({ [String(pid)]: 'T' });
    // The record lost (a cleaner, someone's rm): nothing says what to resume.
    rmSync(join(dir, `lockchaos-${tag('b2')}.stopped`));
    const resume = sh(s.resume);
    expect(resume.code).toBe(5);
    expect(resume.out).toContain(`still stopped (state T) after SIGCONT: pid ${pid}`);
    const heal = sh(s.heal.replace('n -ge 100', 'n -ge 1'));
    expect(heal.code).toBe(5);
    expect(heal.out).toContain(`left: stopped (state T): pid ${pid}`);
    process.kill(pid, 'SIGCONT');
    expect(sh(s.heal).code).toBe(0);
  });

  it('write nothing through a planted link, and read no file that is not a regular one of this user', async () => {
    const pid = await started('exec sleep 30');
    const s = hostScripts(tag('c3'), { process: `echo ${pid}` });
    const victim = join(mkdtempSync(join(tmpdir(), 'lcx-victim-')), 'victim');
    writeFileSync(victim, 'untouched\n');
    const planted = join(dir, `lockchaos-${tag('c3')}.stopped`);
    expect(sh(s.heartbeat).code).toBe(0); // the folder made by the first script that opens it
    symlinkSync(victim, planted);
    try {
      const pause = sh(s.pause);
      expect(pause.code).toBe(4);
      expect(pause.out).toMatch(/refused: .*is not a regular file of/);
      expect(sh(`cat ${victim}`).out).toBe('untouched\n');
      expect(sh(`cut -d' ' -f3 /proc/${pid}/stat`).out.trim()).not.toBe('T');
      expect(sh(s.resume).code).toBe(4);
    } finally {
      rmSync(planted);
    }
  });

  it("list the runs a host holds, with their heartbeat's age and runner; a listing's garbage is dropped", () => {
    const s = hostScripts(tag('e5'), { process: 'false', start: "echo 'it''s'" });
    expect(sh(s.record('ci-7:123:456')).code).toBe(0);
    const listed = listedRuns(sh(HOST_LISTING).out).find((r) => r.runId === tag('e5'));
    expect(listed?.owner).toBe('ci-7:123:456');
    expect(listed?.ageS).toBeLessThanOrEqual(2);
    expect(sh(s.heal).code).toBe(0);
    expect(listedRuns(sh(HOST_LISTING).out).map((r) => r.runId)).not.toContain(tag('e5'));
    expect(listedRuns('run ../x 1 a\ntrace $(rm)\ntrace ab12\nrun ab12 3 h:1:2\n')).toEqual([
      { runId: 'ab12', ageS: 3, owner: 'h:1:2' },
    ]);
  });
});
