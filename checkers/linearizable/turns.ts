/**
 * Parts waiting for their next turn, in the schedule's order: the least round, then check
 * order. A binary heap of round * parts + part.
 */
export class Turns {
  private readonly keys: number[] = [];

  constructor(private readonly parts: number) {}

  get size(): number {
    return this.keys.length;
  }

  push(part: number, round: number): void {
    const keys = this.keys;
    let i = keys.length;
    keys.push(round * this.parts + part);
    while (i > 0) {
      const up = (i - 1) >> 1;
      if (keys[up] <= keys[i]) break;
      [keys[up], keys[i]] = [keys[i], keys[up]];
      i = up;
    }
  }

  /** The first part. */
  peek(): number {
    return this.keys[0] % this.parts;
  }

  /** The first part's place in the schedule (round * parts + part). */
  peekKey(): number {
    return this.keys[0];
  }

  /** The first part's round. */
  peekRound(): number {
    return Math.floor(this.keys[0] / this.parts);
  }

  pop(): number {
    const keys = this.keys;
    const top = keys[0];
    const last = keys.pop() as number;
    if (keys.length > 0) {
      keys[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < keys.length && keys[l] < keys[m]) m = l;
        if (r < keys.length && keys[r] < keys[m]) m = r;
        if (m === i) break;
        [keys[m], keys[i]] = [keys[i], keys[m]];
        i = m;
      }
    }
    return top % this.parts;
  }
}
