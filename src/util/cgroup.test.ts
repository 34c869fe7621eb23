import { describe, expect, it } from 'vitest';
import { cgroup2Mount } from './cgroup.js';

describe('cgroup2Mount', () => {
  const line = (where: string, type: string) => `${type} ${where} ${type} rw,relatime 0 0`;
  it('prefers /sys/fs/cgroup (unified), else the hybrid mount; none without cgroup2', () => {
    expect(cgroup2Mount([line('/sys/fs/cgroup', 'cgroup2')].join('\n'))).toBe('/sys/fs/cgroup');
    const hybrid = [line('/sys/fs/cgroup/cpu', 'cgroup'), line('/sys/fs/cgroup/unified', 'cgroup2')].join('\n');
    expect(cgroup2Mount(hybrid)).toBe('/sys/fs/cgroup/unified');
    expect(cgroup2Mount(line('/sys/fs/cgroup/cpu', 'cgroup'))).toBeUndefined();
  });
});
