/**
 * What a crashed client program said, in one line: the error's own message line where its
 * stderr has one (an uncaught exception in Node, Python, Java, Go), else its last lines.
 * Node prints an uncaught error's fields and its version after the message, so the last
 * lines of a pg client's crash were `routine: 'ProcessInterrupts' | } | Node.js v20.20.2`,
 * and the cause (the server ended the session) was not among them.
 */

/** Lines kept of a program's stderr, enough to hold a Node error's message with its fields and stack after it. */
export const STDERR_LINES_KEPT = 60;
/** At most this much of a crash's words goes into a verdict. */
const MAX_WORDS = 200;

/**
 * An error's message line: a name ending in Error or Exception (dotted, as Python and Java
 * print it), or error / panic / fatal, then a colon; or Java's `Exception in thread "..."`.
 */
const ERROR_LINE =
  /^\s*(?:Uncaught\s+)?(?:(?:[A-Za-z_$][\w$.]*(?:Error|Exception)|error|Error|panic|fatal error|FATAL)(?:\s*\[[^\]]*\])?:\s|Exception in thread\s)/;

/** The words of a crash, from the last lines of its stderr (oldest first). */
export function crashWords(lines: readonly string[]): string {
  const kept = lines.map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  const message = kept.findLast((l) => ERROR_LINE.test(l));
  const words = message === undefined ? kept.slice(-3).join(' | ') : message.trim();
  return words.slice(0, MAX_WORDS);
}
