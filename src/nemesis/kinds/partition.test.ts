import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { partitionRule } from './partition.js';

describe('a partition rule', () => {
  it('hands a hostile peer address to iptables as one word, and runs nothing of it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lcx-rule-'));
    for (const peer of [`10.9.9.9$(touch ${dir}/x)`, `10.9.9.8;touch ${dir}/y;true`, `\`touch ${dir}/z\``, "a'b"]) {
      // iptables stood in for by a function that prints the words it was given.
      const words = execFileSync('sh', ['-c', `iptables() { printf '%s\\n' "$@"; }\n${partitionRule(peer, 'r1')}`], {
        encoding: 'utf8',
      }).split('\n');
      expect(words.slice(0, 4)).toEqual(['-A', 'INPUT', '-s', peer]);
    }
    for (const f of ['x', 'y', 'z']) expect(existsSync(join(dir, f))).toBe(false);
    expect(partitionRule('10.0.0.2', 'r1')).toBe(
      'iptables -A INPUT -s 10.0.0.2 -m comment --comment lockchaos-r1 -j DROP',
    );
  });
});
