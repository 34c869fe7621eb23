/**
 * `lockchaos doctor`: can this machine run lockchaos? One line per check, ok / FAIL / warn,
 * with what to do about a failure. Exit 0 when every required check passes, 3 otherwise.
 * The container check starts one labelled container (removed at the end, and by any
 * later sweep if doctor is killed), with no network.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { zookeeperMissing } from '../backends/zookeeper-session.js';
import { execInContainer } from '../cluster/cluster.js';
import {
  BUILD_IMAGE_COMMAND,
  docker,
  imageExists,
  NODE_IMAGE,
  POSTGRES_IMAGE,
  START_ENGINE,
} from '../cluster/docker-engine.js';
import { runLabels } from '../cluster/labels.js';
import { removeResources } from '../cluster/remove-resources.js';
import { type CgroupSupport, cgroupSupport } from '../util/cgroup.js';
import { EXIT_ERROR, errorMessage } from '../util/errors.js';
import { sleep } from '../util/monotonic-clock.js';
import { procStatFields } from '../util/proc-stat.js';
import { stamped } from '../version.js';
import { argsError } from './args.js';
import type { DoctorCheck } from './doctor-check.js';
import { clientPathCheck } from './doctor-client-path.js';
import { exampleClientsCheck } from './doctor-clients.js';

const HELP = `Usage: lockchaos doctor [--json]

Checks what lockchaos needs on this machine, one line each:
  node          Node.js 20.11 or newer
  docker        a Docker engine answers (and its version)
  node image    ${NODE_IMAGE} exists (else the command that builds it)
  iptables      a container of the node image starts with NET_ADMIN, and iptables works
                in it (a DROP rule with the statistic match, added and removed)
  client path   this process reaches a node on a run's network, and how: direct (a Linux
                host) or join (inside a container with the engine's socket: it joins each
                run's network)
  sigstop       SIGSTOP and SIGCONT of a process work (the client-pause fault)
  chromium      a Chromium for the browser tests of reports (a warning only)
Optional parts (a warning only, saying what is missing without them):
  zookeeper     the native ZooKeeper client (--backend zookeeper) loads
  cgroups       cgroup v2 is writable, so that a run ends all a client program started
                (else its process group only: a daemon that calls setsid outlives the run)
  postgres image  ${POSTGRES_IMAGE} exists (--backend postgres builds it on first use)
  example clients  which of examples/clients/ this machine can run, and what the others
                need installed

--json prints the checks as one JSON object on stdout (with the lockchaos version).

Exit codes: 0 every required check passed, 3 otherwise.`;

const firstLine = (err: unknown) => errorMessage(err).split('\n')[0] ?? '';

function nodeCheck(): DoctorCheck {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  const ok = major > 20 || (major === 20 && minor >= 11);
  return {
    name: 'node',
    status: ok ? 'ok' : 'FAIL',
    detail: ok
      ? `Node.js ${process.versions.node}`
      : `Node.js ${process.versions.node} is too old: install Node.js 20.11 or newer`,
  };
}

async function engineCheck(): Promise<DoctorCheck> {
  try {
    const v = await docker().version();
    return { name: 'docker', status: 'ok', detail: `engine ${v.Version} (API ${v.ApiVersion}, ${v.Os}/${v.Arch})` };
  } catch (err) {
    return {
      name: 'docker',
      status: 'FAIL',
      detail: `no Docker engine answers (${firstLine(err)}): start one (${START_ENGINE})`,
    };
  }
}

async function imageCheck(): Promise<DoctorCheck> {
  if (await imageExists()) return { name: 'node image', status: 'ok', detail: `${NODE_IMAGE} is there` };
  return {
    name: 'node image',
    status: 'FAIL',
    detail: `${NODE_IMAGE} is missing: build it with '${BUILD_IMAGE_COMMAND}'`,
  };
}

/** Runs a command in a container: the cluster's exec, with the doctor's field names. */
async function execIn(containerId: string, cmd: string[]): Promise<{ code: number; output: string }> {
  const r = await execInContainer(containerId, cmd);
  return { code: r.exitCode, output: r.output };
}

async function iptablesCheck(): Promise<DoctorCheck> {
  const name = 'iptables';
  const runId = randomBytes(4).toString('hex');
  try {
    const container = await docker().createContainer({
      Image: NODE_IMAGE,
      name: `lockchaos-${runId}-doctor`,
      Cmd: ['sleep', '120'],
      Labels: runLabels(runId, 'doctor'),
      HostConfig: { CapAdd: ['NET_ADMIN'], NetworkMode: 'none' },
    });
    await container.start();
    // The same rule the loss fault adds (nemesis/kinds/loss.ts), on a port nothing uses.
    const rule = [
      'INPUT',
      '-p',
      'tcp',
      '--dport',
      '9',
      '-m',
      'statistic',
      '--mode',
      'random',
      '--probability',
      '0.2',
      '-j',
      'DROP',
    ];
    const steps: [string, string[]][] = [
      ['list the rules', ['iptables', '-L', '-n']],
      ['add a DROP rule', ['iptables', '-A', ...rule]],
      ['remove it', ['iptables', '-D', ...rule]],
    ];
    for (const [what, cmd] of steps) {
      const r = await execIn(container.id, cmd);
      if (r.code !== 0) {
        return {
          name,
          status: 'FAIL',
          detail: `iptables could not ${what} in a container with NET_ADMIN (exit ${r.code}: ${r.output.trim().split('\n')[0]}): the kernel needs the iptables/nf_tables modules (modprobe ip_tables nf_tables xt_statistic) and the engine must grant NET_ADMIN`,
        };
      }
    }
    return {
      name,
      status: 'ok',
      detail: 'a container with NET_ADMIN starts; iptables lists, adds and removes a DROP rule (statistic match)',
    };
  } catch (err) {
    return {
      name,
      status: 'FAIL',
      detail: `could not start a container of ${NODE_IMAGE} with NET_ADMIN (${firstLine(err)}): check the engine's log`,
    };
  } finally {
    await removeResources({ runId }).catch(() => {});
  }
}

const processState = (pid: number): string | undefined => procStatFields(pid)?.state;

async function waitState(pid: number, want: (s: string | undefined) => boolean): Promise<string | undefined> {
  let s = processState(pid);
  for (let i = 0; i < 100 && !want(s); i++) {
    await sleep(10);
    s = processState(pid);
  }
  return s;
}

async function sigstopCheck(): Promise<DoctorCheck> {
  const name = 'sigstop';
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  const pid = child.pid;
  try {
    if (pid === undefined) throw new Error('could not start sleep');
    process.kill(pid, 'SIGSTOP');
    const stopped = await waitState(pid, (s) => s === 'T' || s === 't');
    process.kill(pid, 'SIGCONT');
    const resumed = await waitState(pid, (s) => s === 'S' || s === 'R');
    if ((stopped === 'T' || stopped === 't') && (resumed === 'S' || resumed === 'R')) {
      return { name, status: 'ok', detail: 'a process stops on SIGSTOP and runs again on SIGCONT' };
    }
    return {
      name,
      status: 'FAIL',
      detail: `a SIGSTOPped process was in state '${stopped}' (want T), then '${resumed}' after SIGCONT: client pauses will not work here (a sandbox that intercepts signals?)`,
    };
  } catch (err) {
    return { name, status: 'FAIL', detail: `cannot signal a child process (${firstLine(err)})` };
  } finally {
    child.kill('SIGKILL');
  }
}

function onPath(names: string[]): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const n of names) {
    for (const d of dirs) {
      try {
        accessSync(join(d, n), constants.X_OK);
        return join(d, n);
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

function chromiumCheck(): DoctorCheck {
  const found = onPath(['chromium', 'chromium-browser', 'google-chrome']);
  return found
    ? { name: 'chromium', status: 'ok', detail: `${found} (for the browser tests of reports)` }
    : {
        name: 'chromium',
        status: 'warn',
        detail: 'no chromium on PATH: the browser tests of reports are skipped (Debian: apt-get install chromium)',
      };
}

/** The optional ZooKeeper client: without it every backend but zookeeper works. */
export function zookeeperCheck(missing = zookeeperMissing()): DoctorCheck {
  return missing === undefined
    ? { name: 'zookeeper', status: 'ok', detail: 'the native ZooKeeper client loads (--backend zookeeper)' }
    : { name: 'zookeeper', status: 'warn', detail: `--backend zookeeper ${missing}; every other backend works` };
}

/** Client programs in cgroups (util/cgroup.ts), or in their process group only. */
export function cgroupCheck(support: CgroupSupport = cgroupSupport()): DoctorCheck {
  const name = 'cgroups';
  return 'parent' in support
    ? {
        name,
        status: 'ok',
        detail: `client programs run in cgroups under ${support.parent}: a run ends all they start`,
      }
    : {
        name,
        status: 'warn',
        detail: `${support.why}: client programs run in their process group only, so a daemon one starts with setsid outlives the run (run as root on cgroup v2 for cgroups)`,
      };
}

/** The postgres image: built on first use of --backend postgres, which then takes minutes longer. */
async function postgresImageCheck(): Promise<DoctorCheck> {
  const name = 'postgres image';
  if (await imageExists(POSTGRES_IMAGE)) return { name, status: 'ok', detail: `${POSTGRES_IMAGE} is there` };
  return {
    name,
    status: 'warn',
    detail: `${POSTGRES_IMAGE} is missing: --backend postgres (and a campaign with it) builds it first, a few minutes once; or build it now with '${BUILD_IMAGE_COMMAND} postgres'; every other backend works`,
  };
}

/** Every check, in order; the Docker checks after a failed engine check say so. */
export async function doctor(): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [nodeCheck()];
  const engine = await engineCheck();
  checks.push(engine);
  if (engine.status === 'ok') {
    const image = await imageCheck();
    checks.push(image);
    checks.push(
      image.status === 'ok'
        ? await iptablesCheck()
        : { name: 'iptables', status: 'FAIL', detail: 'not checked: it needs the node image (see above)' },
    );
    checks.push(
      image.status === 'ok'
        ? await clientPathCheck()
        : { name: 'client path', status: 'FAIL', detail: 'not checked: it needs the node image (see above)' },
    );
  } else {
    checks.push({ name: 'node image', status: 'FAIL', detail: 'not checked: it needs a Docker engine (see above)' });
    checks.push({ name: 'iptables', status: 'FAIL', detail: 'not checked: it needs a Docker engine (see above)' });
    checks.push({ name: 'client path', status: 'FAIL', detail: 'not checked: it needs a Docker engine (see above)' });
  }
  checks.push(await sigstopCheck());
  checks.push(chromiumCheck());
  checks.push(zookeeperCheck());
  checks.push(cgroupCheck());
  if (engine.status === 'ok') checks.push(await postgresImageCheck());
  checks.push(exampleClientsCheck());
  return checks;
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const options = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
  let values: { help?: boolean; json?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options }));
  } catch (err) {
    throw argsError(err, options, 'doctor');
  }
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  const checks = await doctor();
  const failed = checks.filter((c) => c.status === 'FAIL').length;
  if (values.json) {
    console.log(JSON.stringify(stamped({ ok: failed === 0, failed, checks })));
    return failed === 0 ? 0 : EXIT_ERROR;
  }
  const width = Math.max(...checks.map((c) => c.name.length));
  for (const c of checks) console.log(`${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.detail}`);
  console.log(failed === 0 ? 'all required checks passed' : `${failed} required check${failed > 1 ? 's' : ''} failed`);
  return failed === 0 ? 0 : EXIT_ERROR;
}
