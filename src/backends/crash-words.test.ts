import { describe, expect, it } from 'vitest';
import { crashWords } from './crash-words.js';

const lines = (text: string) => text.split('\n');

describe('crashWords', () => {
  it("quotes a Node error's message line, not the fields and version printed after it", () => {
    const node = lines(`node:events:497
      throw er; // Unhandled 'error' event
      ^

error: terminating connection due to idle-session timeout
    at Parser.parseErrorMessage (/x/node_modules/pg-protocol/dist/parser.js:283:98)
Emitted 'error' event on Client instance at:
    at Client._handleErrorEvent (/x/node_modules/pg/lib/client.js:341:10) {
  length: 116,
  severity: 'FATAL',
  code: '57P05',
  file: 'postgres.c',
  routine: 'ProcessInterrupts'
}

Node.js v20.20.2`);
    expect(crashWords(node)).toBe('error: terminating connection due to idle-session timeout');
    expect(crashWords(lines('Error: connect ECONNREFUSED 127.0.0.1:1\n    at x\n}\n\nNode.js v20.20.2'))).toBe(
      'Error: connect ECONNREFUSED 127.0.0.1:1',
    );
  });

  it('quotes the last line of a Python traceback, a Java exception, a Go panic', () => {
    const python = lines(`Traceback (most recent call last):
  File "client.py", line 40, in <module>
    lock.release()
redis.exceptions.ConnectionError: Connection reset by peer`);
    expect(crashWords(python)).toBe('redis.exceptions.ConnectionError: Connection reset by peer');
    const java = lines(`Exception in thread "main" java.lang.IllegalStateException: not held
\tat Lock.release(Lock.java:10)`);
    expect(crashWords(java)).toBe('Exception in thread "main" java.lang.IllegalStateException: not held');
    expect(crashWords(lines('panic: runtime error: index out of range\n\ngoroutine 1 [running]:\nmain.main()'))).toBe(
      'panic: runtime error: index out of range',
    );
  });

  it('is the last three lines where no line is an error, and at most 200 characters', () => {
    expect(crashWords(['one', 'two', '', 'three', 'four'])).toBe('two | three | four');
    expect(crashWords(['the reason'])).toBe('the reason');
    expect(crashWords([`TypeError: ${'x'.repeat(500)}`])).toHaveLength(200);
    expect(crashWords([])).toBe('');
  });
});
