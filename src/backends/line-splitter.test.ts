import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { splitLines } from './line-splitter.js';

function split(chunks: (string | Buffer)[], maxBytes: number) {
  const input = new PassThrough();
  const lines: string[] = [];
  const tooLong: number[] = [];
  splitLines(input, { line: (l) => lines.push(l), tooLong: (n) => tooLong.push(n) }, maxBytes);
  for (const c of chunks) input.write(c);
  input.end();
  return new Promise<{ lines: string[]; tooLong: number[] }>((resolve) =>
    input.on('end', () => resolve({ lines, tooLong })),
  );
}

describe('splitLines', () => {
  it('splits across chunks, drops \\r of \\r\\n, keeps a last line without a newline', async () => {
    const r = await split(['a', 'b\nc\r\n\nd', 'e\nf'], 100);
    expect(r).toEqual({ lines: ['ab', 'c', '', 'de', 'f'], tooLong: [] });
  });

  it('keeps a multi-byte character cut between chunks whole', async () => {
    const bytes = Buffer.from('é\n');
    const r = await split([bytes.subarray(0, 1), bytes.subarray(1)], 100);
    expect(r.lines).toEqual(['é']);
  });

  it('a line of exactly the cap passes; one byte more stops the reading, told once', async () => {
    expect((await split([`${'x'.repeat(10)}\n`], 10)).lines).toEqual(['x'.repeat(10)]);
    const r = await split(['ok\n', 'x'.repeat(6), 'x'.repeat(5), 'y'.repeat(50), '\nnext\n'], 10);
    expect(r).toEqual({ lines: ['ok'], tooLong: [10] });
  });

  it('a long line after short ones in one chunk: the short ones first', async () => {
    const r = await split([`a\nb\n${'x'.repeat(20)}\nc\n`], 10);
    expect(r).toEqual({ lines: ['a', 'b'], tooLong: [10] });
  });
});
