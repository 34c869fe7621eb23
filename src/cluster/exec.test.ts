import { describe, expect, it } from 'vitest';
import { demuxLogs } from './exec.js';

/** One frame of Docker's multiplexed stream: stream (1 stdout, 2 stderr), three zeros, size, data. */
function frame(stream: 1 | 2, text: string): Buffer {
  const data = Buffer.from(text, 'utf8');
  const header = Buffer.alloc(8);
  header.writeUInt8(stream, 0);
  header.writeUInt32BE(data.length, 4);
  return Buffer.concat([header, data]);
}

describe("demuxLogs (Docker's multiplexed output)", () => {
  it('joins the frames of stdout and stderr in order, without their headers', () => {
    const buf = Buffer.concat([frame(1, 'iptables: '), frame(2, 'No chain'), frame(1, ' — done\n')]);
    expect(demuxLogs(buf)).toBe('iptables: No chain — done\n');
  });

  it('keeps a multi-byte character split across frames whole', () => {
    const bytes = Buffer.from('é', 'utf8');
    const header = (n: number) => Buffer.from([1, 0, 0, 0, 0, 0, 0, n]);
    const buf = Buffer.concat([header(1), bytes.subarray(0, 1), header(1), bytes.subarray(1)]);
    expect(demuxLogs(buf)).toBe('é');
  });

  it('reads nothing from an empty stream or a header cut short', () => {
    expect(demuxLogs(Buffer.alloc(0))).toBe('');
    expect(demuxLogs(Buffer.concat([frame(1, 'ok'), Buffer.from([1, 0, 0])]))).toBe('ok');
  });
});
