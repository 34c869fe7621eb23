/**
 * The split keeps each part in columns and builds its objects later (split.ts): what it
 * builds is exactly what reading the paired operations directly gives, part by part.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pairOperations } from '../../src/history/pairs.js';
import { buildHistory, historyArb, modelNamed } from '../../test/unit/linearizable-support.js';
import { MODEL_NAMES } from '../models/index.js';
import type { Model, OpInput, OpOutput } from '../models/linearizable-model.js';
import type { PartData } from './explain.js';
import { Splitter } from './split.js';

/** The parts read straight from the paired operations, without columns. */
function direct(m: Model<unknown>, history: Parameters<typeof pairOperations>[0]): PartData[] {
  const parts = new Map<string | null, PartData>();
  for (const p of pairOperations(history).ops) {
    let input: OpInput = { f: p.f, process: p.process, value: p.invoke.value, index: p.invoke.index };
    if (p.key !== undefined) input = { ...input, key: p.key };
    const known = p.outcome === 'ok';
    let output: OpOutput = { known, value: known ? p.completion?.value : undefined };
    let key = p.key;
    if (key === undefined && m.partition) ({ key, input, output } = m.partition(input, output));
    const k = key ?? null;
    if (!parts.has(k)) parts.set(k, { key: k, ops: [], completions: [] });
    const part = parts.get(k) as PartData;
    part.ops.push({ input, output, call: p.call, ret: p.ret });
    part.completions.push(p.completion?.index ?? -1);
  }
  return [...parts.values()];
}

describe('Splitter', () => {
  for (const name of MODEL_NAMES) {
    it(`${name}: each part built from its columns is the part read directly, with its size and first completion`, () => {
      const m = modelNamed(name) as Model<unknown>;
      fc.assert(
        fc.property(historyArb, ({ actions, processes, drain }) => {
          const history = buildHistory(name, actions, processes, drain);
          const splitter = new Splitter(m);
          for (const p of pairOperations(history).ops) splitter.add(p);
          const parts = splitter.finish();
          const expected = direct(m, history);
          expect(parts.map((p) => p.data())).toStrictEqual(expected);
          for (const [i, part] of parts.entries()) {
            expect(part.size).toBe(expected[i].ops.length);
            expect(part.firstRet).toBe(Math.min(...expected[i].ops.map((op) => op.ret)));
            expect(expected[i].ops.map((_, j) => part.ret(j))).toEqual(expected[i].ops.map((op) => op.ret));
          }
          expect(splitter.indefinite).toBe(expected.flatMap((p) => p.ops).filter((op) => !op.output.known).length);
        }),
        { numRuns: 200, seed: 20261201 },
      );
    });
  }
});
