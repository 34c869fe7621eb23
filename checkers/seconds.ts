/** "1.234 s": a history time (ns since the test's origin) in seconds, as checkers' words give it. */
export const secs = (ns: number) => `${(ns / 1e9).toFixed(3)} s`;
