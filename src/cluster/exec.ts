/** Running a command in a container, and reading Docker's multiplexed output. */
import { docker } from './docker-engine.js';

export interface ExecResult {
  exitCode: number;
  output: string;
}

/** Docker's multiplexed log stream: 8-byte headers (stream, 0, 0, 0, size32) then data. */
export function demuxLogs(buf: Buffer): string {
  const parts: Buffer[] = [];
  let i = 0;
  while (i + 8 <= buf.length) {
    const size = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + size));
    i += 8 + size;
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Runs a command in a container: its exit code and its output (stdout and stderr). */
export async function execInContainer(containerId: string, command: string[]): Promise<ExecResult> {
  const exec = await docker().getContainer(containerId).exec({ Cmd: command, AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? -1, output: demuxLogs(Buffer.concat(chunks)) };
}
