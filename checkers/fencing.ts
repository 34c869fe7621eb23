/**
 * Fencing: the tokens keep stale holders out only if (1) they grow with the real-time
 * order of grants: a grant that began after another ended must carry a larger token, and
 * (2) the store never accepted an older token after it had accepted a newer one: an
 * acknowledged write that began after another acknowledged write ended must not carry a
 * smaller token.
 */
import type { Op } from '../src/history/op.js';
import { type LenientOp, pairLeniently } from '../src/history/pairs.js';
import type { RunChecker } from './checker.js';
import { decodeGrant, decodeWrite } from './op-values.js';
import type { CheckerViolation, CheckResult } from './result.js';
import { secs } from './seconds.js';

interface Tokened {
  token: number;
  invoke: Op;
  completion: Op;
}

/**
 * Pairs (earlier, later) where `later` began after `earlier` completed but carries a
 * token not larger (strict) or smaller (not strict). O(n log n): walk in invocation
 * order, keeping the largest token among operations already completed.
 */
export function regressions(ops: Tokened[], strict: boolean): { earlier: Tokened; later: Tokened }[] {
  const byCompletion = [...ops].sort((a, b) => a.completion.time - b.completion.time);
  const byInvoke = [...ops].sort((a, b) => a.invoke.time - b.invoke.time);
  const found: { earlier: Tokened; later: Tokened }[] = [];
  let max: Tokened | undefined;
  let i = 0;
  for (const later of byInvoke) {
    while (i < byCompletion.length && (byCompletion[i] as Tokened).completion.time < later.invoke.time) {
      const c = byCompletion[i++] as Tokened;
      if (!max || c.token > max.token) max = c;
    }
    if (max && (strict ? later.token <= max.token : later.token < max.token)) found.push({ earlier: max, later });
  }
  return found;
}

/**
 * Tokens granted more than once: the mark of a token source that forked (two primaries each
 * counting on from the same value). Each with the first two grants that carried it.
 */
export function duplicatedTokens(grants: Tokened[]): { token: number; first: Tokened; second: Tokened }[] {
  const firstGrant = new Map<number, Tokened>();
  const found = new Map<number, { token: number; first: Tokened; second: Tokened }>();
  for (const g of [...grants].sort((a, b) => a.completion.time - b.completion.time)) {
    const first = firstGrant.get(g.token);
    if (!first) firstGrant.set(g.token, g);
    else if (!found.has(g.token)) found.set(g.token, { token: g.token, first, second: g });
  }
  return [...found.values()];
}

function tokened(pairs: readonly LenientOp[], f: string, token: (op: Op) => number | undefined): Tokened[] {
  const out: Tokened[] = [];
  for (const { invoke, completion } of pairs) {
    if (invoke.f !== f || completion?.type !== 'ok') continue;
    const t = token(f === 'acquire' ? completion : invoke);
    if (t !== undefined) out.push({ token: t, invoke, completion });
  }
  return out;
}

/** Two operations out of token order, structured for reports: completion op indices in the stored history. */
export interface TokenPair {
  earlierIndex: number;
  laterIndex: number;
  earlierToken: number;
  laterToken: number;
}

const indices = (r: { earlier: Tokened; later: Tokened }): TokenPair => ({
  earlierIndex: r.earlier.completion.index,
  laterIndex: r.later.completion.index,
  earlierToken: r.earlier.token,
  laterToken: r.later.token,
});

// A type, not an interface: results.json details are a plain record.
export type FencingDetails = {
  grants: number;
  /** How many; when invalid, the first 50 instead. */
  grantRegressions: number | TokenPair[];
  duplicatedTokens: number;
  acceptedWrites: number;
  /** How many; when invalid, the first 50 instead. */
  staleAccepted: number | TokenPair[];
  /** When invalid: the first of each kind in words. */
  first?: string[];
};

export function checkFencing(
  history: readonly Op[],
  opts: { storeKey: string; fenced: boolean },
): CheckResult & { details?: FencingDetails } {
  const base = { checker: 'fencing', counts: opts.fenced };
  const pairs = pairLeniently(history);
  const grants = tokened(pairs, 'acquire', (op) => decodeGrant(op.value).token);
  if (grants.length === 0) {
    return { ...base, counts: false, valid: true, summary: 'no grant carried a fencing token' };
  }
  const grantRegressions = regressions(grants, true);
  const duplicated = duplicatedTokens(grants);
  const writes = opts.fenced
    ? tokened(
        pairs.filter((p) => p.invoke.key === opts.storeKey),
        'write',
        (op) => decodeWrite(op.value).token,
      )
    : [];
  const staleAccepted = regressions(writes, false);
  const details: FencingDetails = {
    grants: grants.length,
    grantRegressions: grantRegressions.length,
    duplicatedTokens: duplicated.length,
    acceptedWrites: writes.length,
    staleAccepted: staleAccepted.length,
  };
  if (grantRegressions.length === 0 && staleAccepted.length === 0) {
    return {
      ...base,
      valid: true,
      summary:
        `${grants.length} grants with growing tokens` +
        (opts.fenced ? `; ${writes.length} accepted writes, no stale token accepted` : ''),
      details,
    };
  }
  const words: string[] = [];
  if (staleAccepted[0]) {
    const { earlier, later } = staleAccepted[0];
    words.push(
      `the store accepted token ${later.token} from process ${later.invoke.process} at ${secs(later.completion.time)} (op #${later.completion.index}) after it had accepted token ${earlier.token} at ${secs(earlier.completion.time)} (op #${earlier.completion.index})`,
    );
  }
  if (duplicated[0]) {
    const { token, first, second } = duplicated[0];
    words.push(
      `token ${token} was granted twice: to process ${first.invoke.process} at ${secs(first.completion.time)} (op #${first.completion.index}) and to process ${second.invoke.process} at ${secs(second.completion.time)} (op #${second.completion.index})`,
    );
  }
  if (grantRegressions[0]) {
    const { earlier, later } = grantRegressions[0];
    words.push(
      `process ${later.invoke.process} was granted token ${later.token} at ${secs(later.completion.time)} (op #${later.completion.index}), not larger than token ${earlier.token} granted earlier at ${secs(earlier.completion.time)} (op #${earlier.completion.index})`,
    );
  }
  return {
    ...base,
    valid: false,
    summary: `${duplicated.length > 0 ? `the token source forked: ${duplicated.length} tokens granted twice; ` : ''}${staleAccepted.length} stale tokens accepted, ${grantRegressions.length} token regressions; first: ${words.join('; ')}`,
    details: {
      ...details,
      first: words,
      staleAccepted: staleAccepted.slice(0, 50).map(indices),
      grantRegressions: grantRegressions.slice(0, 50).map(indices),
    },
  };
}

/** Tokens must grow with the grants; with fencing, the store must keep stale ones out: counted then. */
export const fencingChecker: RunChecker = {
  name: () => 'fencing',
  counts: (run) => run.fenced,
  check: (run) => checkFencing(run.history, { storeKey: run.storeKey, fenced: run.fenced }),
};

/** The stale tokens a result says the store accepted, and the grants out of token order. */
export function fencingViolations(result: CheckResult): CheckerViolation[] {
  const d = result.details as Partial<FencingDetails> | undefined;
  if (result.valid !== false || !d) return [];
  const list = (x: unknown) => (Array.isArray(x) ? (x as TokenPair[]) : []);
  const stale = list(d.staleAccepted).map(
    (s): CheckerViolation => ({
      kind: 'stale',
      words: `the store accepted token ${s.laterToken} (op #${s.laterIndex}) after it had accepted token ${s.earlierToken} (op #${s.earlierIndex})`,
      marks: [
        { index: s.earlierIndex, label: `store accepts token ${s.earlierToken}` },
        { index: s.laterIndex, label: `then accepts older token ${s.laterToken}` },
      ],
    }),
  );
  const regressions = list(d.grantRegressions).map(
    (s): CheckerViolation => ({
      kind: 'regression',
      words: `a grant with token ${s.laterToken} (op #${s.laterIndex}) came after a grant with token ${s.earlierToken} (op #${s.earlierIndex})`,
      marks: [
        { index: s.earlierIndex, label: `granted token ${s.earlierToken}` },
        { index: s.laterIndex, label: `later granted token ${s.laterToken}` },
      ],
    }),
  );
  return [...stale, ...regressions];
}
