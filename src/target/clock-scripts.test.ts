import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { clockWarpSupport, parseWarpState } from '../cluster/clock-warp.js';
import { clocksRestored, isX8664Elf, SHOWN, scriptPid } from './clock-scripts.js';
import { HOST_LISTING, hostScripts, listedRuns } from './commands.js';
import { listedPids, runnerClockHelper } from './ssh-clock.js';

/** A script run here as on a host (`as`: another user, by setpriv): its exit code and its output. */
function sh(script: string, input?: Buffer, as?: number): { code: number; out: string } {
  const argv =
    as === undefined ? ['sh', '-c', script] : [`--reuid=${as}`, `--regid=${as}`, '--clear-groups', 'sh', '-c', script];
  try {
    return {
      code: 0,
      out: execFileSync(as === undefined ? 'sh' : 'setpriv', as === undefined ? argv.slice(1) : argv, {
        encoding: 'utf8',
        input,
        stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      }),
    };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
const tag = (what: string) => `${what}${process.pid.toString(16)}`.replace(/[^0-9a-f]/g, '');
const dir = `/var/tmp/lockchaos-${process.getuid?.() ?? 0}`;

describe("node-clock's scripts for a host", () => {
  it('take only integer pids and finite changes: a host-printed word never reaches a script', () => {
    const s = hostScripts('ab12', { process: 'pgrep -x redis-server' }).clock;
    expect(() => s.warp(Number('1; touch /tmp/x'), { jumpMs: 5 })).toThrow(/not a process id/);
    expect(() => s.read(1.5)).toThrow(/not a process id/);
    expect(() => s.restore(-3)).toThrow(/not a process id/);
    expect(() => s.set(7, { rate: Number.NaN })).toThrow(/finite/);
    expect(s.warp(42, { jumpMs: -1500, rate: 0.2 })).toContain('"$lc_cw" attach $p --jump-ms -1500 --rate 0.2');
    expect(scriptPid(SHOWN.pid)).toBe('<pid>');
    expect(listedPids('12 x 13;rm 99999999999 0 14\n')).toEqual([12, 14]);
  });

  it("hold a hostile process command as data: quoted once, run only as the inventory's command", () => {
    const hostile = `pgrep x'; touch /tmp/lcx-pwned-${process.pid}; echo '`;
    const s = hostScripts(tag('c1'), { process: hostile, path: '/usr/sbin:/sbin' });
    for (const script of [s.clock.check, s.clock.probe, s.clock.warp(5, { jumpMs: 1 }), s.heal, s.clock.born([5])]) {
      expect(() => execFileSync('sh', ['-n', '-c', script], { stdio: 'pipe' })).not.toThrow();
      expect(script).toContain(`lc_process='pgrep x'\\''; touch /tmp/lcx-pwned-${process.pid}; echo '\\'''`);
    }
    // The warp and read scripts do not run the inventory's command at all.
    sh(s.clock.read(1));
    expect(existsSync(`/tmp/lcx-pwned-${process.pid}`)).toBe(false);
  });

  it('count what a heal restored, and a host lists a run with only a warp or a helper left', () => {
    expect(clocksRestored('clock restored: pid 12\nleft: x\nclock restored: pid 13\n')).toBe(2);
    expect(clocksRestored('clock restored: pid x')).toBe(0);
    const id = tag('c2');
    expect(sh(`${hostScripts(id, {}).shared}\nlc_open; echo 1 2 > "$lc_warped_file"`).code).toBe(0);
    try {
      expect(listedRuns(sh(HOST_LISTING).out)).toContainEqual({ runId: id });
    } finally {
      sh(`rm -f ${dir}/lockchaos-${id}.warped`);
    }
  });

  it('tell an x86_64 Linux program from anything else', () => {
    const elf = Buffer.alloc(20);
    elf.set([0x7f, 0x45, 0x4c, 0x46]);
    elf[18] = 62;
    expect(isX8664Elf(elf)).toBe(true);
    elf[18] = 183; // aarch64
    expect(isX8664Elf(elf)).toBe(false);
    expect(isX8664Elf(Buffer.from('#!/bin/sh\n'))).toBe(false);
  });
});

const helper = runnerClockHelper();
const canWarp = clockWarpSupport().ok && 'path' in helper;

describe.runIf(canWarp)("node-clock's scripts run here, as on a host, with the built helper", () => {
  async function started(command = 'exec sleep 60') {
    const child = spawn('sh', ['-c', command], { stdio: 'ignore' });
    children.push(child);
    await new Promise((r) => setTimeout(r, 200));
    return child.pid as number;
  }
  const bytes = () => readFileSync((helper as { path: string }).path);

  it('check, copy, try, warp, change, read and restore a process; the heal removes the helper', async () => {
    const pid = await started();
    const s = hostScripts(tag('c3'), { process: `echo ${pid}` });
    expect(sh(s.clock.check)).toEqual({ code: 0, out: '' });
    // Not root: refused in one line naming the fix, nothing written.
    const asNobody = sh(s.clock.check, undefined, 65534);
    expect(asNobody.code).toBe(6);
    expect(asNobody.out).toMatch(/^clock-warp needs root on the host .* log in as root or set ssh\.sudo\n$/);
    // A copy cut short is not installed.
    expect(sh(s.clock.install(bytes().length + 1), bytes()).code).toBe(4);
    expect(sh(s.clock.install(bytes().length), bytes()).code).toBe(0);
    expect(sh(s.clock.probe).code).toBe(0);
    const warped = sh(s.clock.warp(pid, { jumpMs: 5000 }));
    expect(warped.code).toBe(0);
    expect(parseWarpState(warped.out.trim())).toMatchObject({ pid, warped: true });
    expect(sh(`cat ${dir}/lockchaos-${tag('c3')}.warped`).out).toMatch(new RegExp(`^${pid} \\d+\\n$`));
    expect(sh(s.clock.set(pid, { rate: 0.5 })).code).toBe(0);
    const read = parseWarpState(sh(s.clock.read(pid)).out.trim());
    expect(read.rate).toBe(0.5);
    expect(read.offsetMs?.realtime).toBeGreaterThan(4990);
    const restored = sh(s.clock.restore(pid));
    expect(parseWarpState(restored.out.trim().split('\n').pop() ?? '')).toMatchObject({ warped: false });
    expect(existsSync(`${dir}/lockchaos-${tag('c3')}.warped`)).toBe(false);
    const heal = sh(s.heal);
    expect(heal.code).toBe(0);
    expect(clocksRestored(heal.out)).toBe(0);
    expect(existsSync(`${dir}/lockchaos-${tag('c3')}.clock-warp`)).toBe(false);
  });

  it('a heal after a crash restores what the run left warped, its children too, and says so', async () => {
    // A shell that forks a subshell (no exec: it keeps the parent's memory, warp and all) a second on.
    const pid = await started('sleep 1; ( while :; do sleep 1; done )');
    const id = tag('c4');
    const s = hostScripts(id, { process: `echo ${pid}` });
    expect(sh(s.clock.install(bytes().length), bytes()).code).toBe(0);
    expect(sh(s.clock.warp(pid, { jumpMs: -3000 })).code).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    const kid = Number(execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim());
    expect(listedPids(sh(s.clock.born([pid])).out)).toEqual([kid]);
    expect(parseWarpState(sh(s.clock.read(kid)).out)).toMatchObject({ warped: true });
    // A process gone, and a pid now another process's (its start time differs), are passed over.
    sh(`echo "999999 1" >> ${dir}/lockchaos-${id}.warped; echo "1 1" >> ${dir}/lockchaos-${id}.warped`);
    expect(sh(s.clock.missing).code).not.toBe(0); // the helper is there
    const heal = sh(s.heal);
    expect(heal.out.trim()).toBe(`clock restored: pid ${pid}\nclock restored: pid ${kid}`);
    expect(heal.code).toBe(0);
    expect(parseWarpState(sh(`${(helper as { path: string }).path} read ${pid}`).out)).toMatchObject({ warped: false });
    expect(sh(`ls ${dir} | grep -c lockchaos-${id} || true`).out.trim()).toBe('0');
  });

  it('a heal with the helper gone says the clock is left, keeps the record, and asks for it again', async () => {
    const pid = await started();
    const id = tag('c5');
    const s = hostScripts(id, { process: `echo ${pid}` });
    expect(sh(s.clock.install(bytes().length), bytes()).code).toBe(0);
    expect(sh(s.clock.warp(pid, { jumpMs: 2000 })).code).toBe(0);
    sh(`rm ${dir}/lockchaos-${id}.clock-warp`);
    expect(sh(s.clock.missing).code).toBe(0);
    const heal = sh(s.heal.replace('[ $n -ge 10 ]', '[ $n -ge 1 ]'));
    expect(heal.code).toBe(5);
    expect(heal.out).toMatch(new RegExp(`^left: clock still warped: pid ${pid} \\(the clock-warp helper is gone`));
    expect(sh(s.clock.install(bytes().length), bytes()).code).toBe(0);
    expect(sh(s.heal).out.trim()).toBe(`clock restored: pid ${pid}`);
  });
});
