import { describe, expect, it } from 'vitest';
import { clientPathWords, ownContainerId } from './client-path.js';

const ID = '0123456789abcdef'.repeat(4);

/** /proc/self/mountinfo lines as a container sees them (the engine bind-mounts its files). */
const inContainer = [
  '1095 1076 0:63 / / rw,relatime - overlay overlay rw,lowerdir=/var/lib/docker/overlay2/l/X',
  `1110 1095 254:1 /var/lib/docker/containers/${ID}/resolv.conf /etc/resolv.conf rw,relatime - ext4 /dev/vda1 rw`,
  `1111 1095 254:1 /var/lib/docker/containers/${ID}/hostname /etc/hostname rw,relatime - ext4 /dev/vda1 rw`,
].join('\n');

const onHost = '22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n25 22 0:5 / /dev rw - devtmpfs udev rw';

describe("this process's path to a run's network", () => {
  it('finds the container it runs in from the files the engine mounted', () => {
    expect(ID).toHaveLength(64);
    expect(ownContainerId(inContainer)).toBe(ID);
  });

  it('finds none on a host, nor from a path that only looks like one', () => {
    expect(ownContainerId(onHost)).toBeUndefined();
    expect(ownContainerId('')).toBeUndefined();
    expect(ownContainerId(`1 1 0:1 /containers/${ID.slice(1)}/hostname /etc/hostname rw`)).toBeUndefined();
  });

  it('says each path in words, the container by its short id', () => {
    expect(clientPathWords({ kind: 'direct' })).toMatch(/^direct: /);
    expect(clientPathWords({ kind: 'join', container: ID })).toBe(
      `join: this process's container (${ID.slice(0, 12)}) joins each run's network`,
    );
  });
});
