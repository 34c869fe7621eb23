/**
 * Lines of a client program's stdout, with a cap on their length. readline keeps a line
 * whole however long it grows: a program that writes 100 MB without a newline cost its
 * worker 191 MB, and one that never writes one would take the machine. Here a line longer
 * than the cap ends the reading: the caller is told once, and the rest is not kept.
 */

/** The longest line a client program may write (its answers are a few hundred bytes). */
export const MAX_LINE_BYTES = 1024 * 1024;

export interface LineHandlers {
  line: (line: string) => void;
  /** The line reached `maxBytes` without a newline: reading stopped. */
  tooLong: (maxBytes: number) => void;
}

/**
 * Calls `on.line` with each line of `input` (without its newline, or its \r\n), the last
 * one too when the stream ends without a newline, as readline does.
 */
export function splitLines(input: NodeJS.ReadableStream, on: LineHandlers, maxBytes = MAX_LINE_BYTES): void {
  // The start of the current line: chunks that held no newline yet, and their length.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let stopped = false;
  const emit = (parts: Buffer[]) => {
    const text = Buffer.concat(parts).toString('utf8');
    on.line(text.endsWith('\r') ? text.slice(0, -1) : text);
  };
  const onData = (data: Buffer | string) => {
    if (stopped) return;
    let chunk = typeof data === 'string' ? Buffer.from(data) : data;
    for (let nl = chunk.indexOf(10); nl >= 0 && !stopped; nl = chunk.indexOf(10)) {
      if (pendingBytes + nl > maxBytes) break;
      emit([...pending, chunk.subarray(0, nl)]);
      pending = [];
      pendingBytes = 0;
      chunk = chunk.subarray(nl + 1);
    }
    if (stopped) return;
    const nl = chunk.indexOf(10);
    if (pendingBytes + (nl >= 0 ? nl : chunk.length) > maxBytes) {
      stopped = true;
      pending = [];
      input.removeListener('data', onData);
      // Drained, not kept: the program may go on writing until it is killed.
      input.resume();
      on.tooLong(maxBytes);
      return;
    }
    if (chunk.length > 0) {
      pending.push(chunk);
      pendingBytes += chunk.length;
    }
  };
  input.on('data', onData);
  input.on('end', () => {
    if (!stopped && pendingBytes > 0) emit(pending);
    pending = [];
  });
}
