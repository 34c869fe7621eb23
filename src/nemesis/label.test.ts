import { describe, expect, it } from 'vitest';
import { faultLabel, shortFaultLabel } from './label.js';

/** What each kind's start records (as in history.jsonl), and how it reads in the report and the progress line. */
const RECORDED: [kind: string, value: unknown, report: string, progress: string][] = [
  [
    'client-pause',
    { client: 2, process: 7, pid: 123, ms: 1500 },
    'client-pause · process 7 · 1500 ms',
    'client-pause process 7',
  ],
  [
    'client-pause',
    { client: 2, process: 7, pid: 123, at: 'in-extend', ms: 1500 },
    'client-pause · process 7 · at in-extend · 1500 ms',
    'client-pause process 7',
  ],
  [
    'client-kill',
    { client: 1, process: 4, at: 'before-release' },
    'client-kill · process 4 · at before-release',
    'client-kill process 4',
  ],
  [
    'client-clock',
    { client: 1, process: 6, pid: 9, at: 'x', ms: 80, clockStepMs: 1200 },
    'client-clock · process 6 · 80 ms',
    'client-clock process 6',
  ],
  ['pause-node', { nodes: ['n1', 'n2'], ms: 900 }, 'pause-node · n1, n2 · 900 ms', 'pause-node n1, n2'],
  ['kill-node', { nodes: ['n3'], ms: 500, loseData: true }, 'kill-node · n3 · 500 ms', 'kill-node n3'],
  ['partition', { shape: 'halves', drops: { n1: ['n2'] }, ms: 900 }, 'partition · halves · 900 ms', 'partition halves'],
  [
    'partition',
    { shape: 'clients', clients: [0, 3], ms: 700 },
    'partition · clients · clients 0, 3 · 700 ms',
    'partition clients',
  ],
  ['loss', { nodes: ['n1'], probability: 0.2, ms: 400 }, 'loss · n1 · 20% loss · 400 ms', 'loss n1'],
  [
    'latency',
    { to: 'store', clients: 'client 3', delayMs: 800, ms: 2000 },
    'latency · to store · +800 ms delay · 2000 ms',
    'latency to store',
  ],
  ['clock', { nodes: ['zk-1'], jumpMs: -2000, effects: {} }, 'clock · zk-1 · clock -2000 ms', 'clock zk-1'],
  ['clock', { nodes: ['r1'], offsetMs: 900, periodMs: 120 }, 'clock · r1', 'clock r1'],
  [
    'node-clock',
    { nodes: ['etcd-1'], mode: 'forward', jumpMs: 1500 },
    'node-clock · etcd-1 · clock +1500 ms',
    'node-clock etcd-1',
  ],
  ['node-clock', { nodes: ['r2'], mode: 'rate', rate: 0.25 }, 'node-clock · r2 · clock rate ×1.25', 'node-clock r2'],
  [
    'node-clock',
    { nodes: ['r1'], mode: 'strobe', offsetMs: 900, periodMs: 120 },
    'node-clock · r1 · clock strobe +900 ms',
    'node-clock r1',
  ],
];

describe('a recorded fault in words', () => {
  it.each(RECORDED)('%s %j', (kind, value, report, progress) => {
    expect(faultLabel(kind, value)).toBe(report);
    expect(shortFaultLabel(kind, value)).toBe(progress);
  });

  it('names a kind no module has (an older record) by its kind and length, and takes any value', () => {
    expect(faultLabel('pause-client', { process: 0, ms: 1000 })).toBe('pause-client · 1000 ms');
    expect(shortFaultLabel('pause-client', { process: 0 })).toBe('pause-client');
    expect(faultLabel('loss', null)).toBe('loss');
    expect(shortFaultLabel('partition', 'halves')).toBe('partition');
  });
});
