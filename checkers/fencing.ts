/**
 * Fencing: the tokens keep stale holders out only if (1) they grow with the real-time
 * order of grants: a grant that began after another ended must carry a larger token,
 * (2) the store never accepted an older token after it had accepted a newer one: an
 * acknowledged write that began after another acknowledged write ended must not carry a
 * smaller token, and (3) no grant outranks a holder whose lease stands: a token larger
 * than the current holder's, handed out while that holder's lease (its grant's validity)
 * still stood and no fault touched it, makes the store trust the newcomer and turn the
 * rightful holder away. That is the mark of a token taken in a separate step after the
 * grant (SET NX, then INCR): a holder stopped between the two wakes with a token larger
 * than the next holder's.
 */
import type { Op } from '../src/history/op.js';
import { type LenientOp, pairLeniently } from '../src/history/pairs.js';
import type { RunChecker } from './checker.js';
import type { CheckerWords } from './checker-words.js';
import { faultWindows } from './fault-windows.js';
import { leaseAt } from './lease.js';
import { type Hold, holdsOf, overlaps } from './mutual-exclusion.js';
import { decodeGrant, decodeWrite } from './op-values.js';
import type { CheckerViolation, CheckResult, ViolationKind } from './result.js';
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

/**
 * The lease a grant claims, less this share of it: a grant's ok is stamped after the
 * server granted (a reply in flight, a loaded machine), so its lease may end that much
 * before the claim; a grant outranks a holder only well inside the holder's claim.
 */
const LEASE_SLACK = 0.25;

/** A grant that outranked a holder whose lease stood (rule 3). */
export interface Outranking {
  /** `validityMs`: of its grant, or of its last extension (at `extendedAt`) where its library extended it. */
  holder: { process: number; token: number; start: number; index: number; validityMs: number; extendedAt?: number };
  newcomer: { process: number; token: number; start: number; index: number; invokedAt: number };
}

/**
 * Rule 3: grants made while another process held the lock with its lease standing (by
 * its own grant's validity, less the slack), carrying a larger token, with no fault on the
 * holder (nor on every client or node) from its grant to the newcomer's. A holder a fault
 * touched may have lost its lease for good reason (a pause, a cut), so it is left out.
 */
export function outrankings(history: readonly Op[]): Outranking[] {
  const holds = holdsOf(history).filter((h) => h.token !== undefined);
  if (holds.length < 2) return [];
  const invokes = new Map<number, Op>();
  for (const { invoke, completion } of pairLeniently(history)) {
    if (completion) invokes.set(completion.index, invoke);
  }
  const windows = faultWindows(history);
  const touches = (process: number, from: number, to: number) =>
    windows.some((w) => {
      if (w.start > to || (w.end ?? Number.POSITIVE_INFINITY) < from) return false;
      const v = w.value as { process?: unknown } | undefined;
      return typeof v?.process !== 'number' || v.process === process;
    });
  const found: Outranking[] = [];
  // Only holds that overlap can outrank one another: the overlap sweep's pairs (each later
  // hold with the earlier ones still open at its grant, in order of start), the nearest first.
  const earlierOf = new Map<Hold, Hold[]>();
  for (const { first, second } of overlaps(holds)) {
    const list = earlierOf.get(second);
    if (list) list.push(first);
    else earlierOf.set(second, [first]);
  }
  for (const [later, earliers] of earlierOf) {
    for (const earlier of earliers.reverse()) {
      // Dated from the holder's last extension before the newcomer's grant, if its library extended it.
      const lease = leaseAt(history, earlier, later.start);
      if (lease === undefined) continue;
      const { validityMs } = lease;
      const standsUntil = lease.time + (1 - LEASE_SLACK) * validityMs * 1e6;
      if (later.start >= standsUntil || (later.token as number) <= (earlier.token as number)) continue;
      if (touches(earlier.process, earlier.start, later.start)) continue;
      found.push({
        holder: {
          process: earlier.process,
          token: earlier.token as number,
          start: earlier.start,
          index: earlier.acquireIndex,
          validityMs,
          ...(lease.extension ? { extendedAt: lease.time } : {}),
        },
        newcomer: {
          process: later.process,
          token: later.token as number,
          start: later.start,
          index: later.acquireIndex,
          invokedAt: invokes.get(later.acquireIndex)?.time ?? later.start,
        },
      });
      break;
    }
  }
  return found;
}

/** An outranking in words: who was trusted over whom, and why it reads as a token taken late. */
export function outrankingWords(o: Outranking): string {
  const { holder: h, newcomer: n } = o;
  const late =
    n.invokedAt < h.start
      ? `; process ${n.process}'s acquire began at ${secs(n.invokedAt)}, before that grant: a stale holder's token larger than the next holder's (a token not taken with the grant)`
      : '';
  return `process ${n.process} was granted token ${n.token} at ${secs(n.start)} (op #${n.index}) while process ${h.process}'s lease stood (token ${h.token}, granted at ${secs(h.start)} (op #${h.index})${h.extendedAt === undefined ? '' : `, last extended at ${secs(h.extendedAt)}`} for ${Math.round(h.validityMs)} ms) and no fault touched process ${h.process}: the store now trusts process ${n.process} and turns away the holder whose lease stands${late}`;
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
  /** Grants that outranked a holder whose lease stood (rule 3): how many; when invalid, the first 50. */
  outranked?: number | TokenPair[];
  /** When invalid: the first of each kind in words. */
  first?: string[];
};

export function checkFencing(
  history: readonly Op[],
  opts: { storeKey: string; fencing: boolean },
): CheckResult & { details?: FencingDetails } {
  const base = { checker: 'fencing', counts: opts.fencing };
  const pairs = pairLeniently(history);
  const grants = tokened(pairs, 'acquire', (op) => decodeGrant(op.value).token);
  if (grants.length === 0) {
    return { ...base, counts: false, valid: true, summary: 'no grant carried a fencing token' };
  }
  const grantRegressions = regressions(grants, true);
  const duplicated = duplicatedTokens(grants);
  const writes = opts.fencing
    ? tokened(
        pairs.filter((p) => p.invoke.key === opts.storeKey),
        'write',
        (op) => decodeWrite(op.value).token,
      )
    : [];
  const staleAccepted = regressions(writes, false);
  const outranked = outrankings(history);
  const details: FencingDetails = {
    grants: grants.length,
    grantRegressions: grantRegressions.length,
    duplicatedTokens: duplicated.length,
    acceptedWrites: writes.length,
    staleAccepted: staleAccepted.length,
    outranked: outranked.length,
  };
  if (grantRegressions.length === 0 && staleAccepted.length === 0 && outranked.length === 0) {
    return {
      ...base,
      valid: true,
      summary:
        `${grants.length} grants with growing tokens` +
        (opts.fencing ? `; ${writes.length} accepted writes, no stale token accepted` : ''),
      details,
    };
  }
  const words: string[] = [];
  if (outranked[0]) words.push(outrankingWords(outranked[0]));
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
    summary: `${outranked.length > 0 ? `${outranked.length} grants outranked a holder whose lease stood; ` : ''}${duplicated.length > 0 ? `the token source forked: ${duplicated.length} tokens granted twice; ` : ''}${staleAccepted.length} stale tokens accepted, ${grantRegressions.length} token regressions; first: ${words.join('; ')}`,
    details: {
      ...details,
      first: words,
      outranked: outranked.slice(0, 50).map((o) => ({
        earlierIndex: o.holder.index,
        laterIndex: o.newcomer.index,
        earlierToken: o.holder.token,
        laterToken: o.newcomer.token,
      })),
      staleAccepted: staleAccepted.slice(0, 50).map(indices),
      grantRegressions: grantRegressions.slice(0, 50).map(indices),
    },
  };
}

/** Tokens must grow with the grants; with fencing, the store must keep stale ones out: counted then. */
export const fencingChecker: RunChecker = {
  name: () => 'fencing',
  counts: (run) => run.fencing,
  check: (run) => checkFencing(run.history, { storeKey: run.storeKey, fencing: run.fencing }),
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
  const outranked = list(d.outranked).map(
    (s): CheckerViolation => ({
      kind: 'stale',
      words: `a grant with token ${s.laterToken} (op #${s.laterIndex}) outranked the holder of token ${s.earlierToken} (op #${s.earlierIndex}) while its lease stood`,
      marks: [
        { index: s.earlierIndex, label: `holder granted token ${s.earlierToken}` },
        { index: s.laterIndex, label: `outranked by token ${s.laterToken}` },
      ],
    }),
  );
  return [...outranked, ...stale, ...regressions];
}

/** The first pair of a stored list (a count when valid, the first 50 when invalid). */
const firstPair = (x: unknown) => (Array.isArray(x) ? (x[0] as TokenPair | undefined) : undefined);

/** The headline's short words for the first stale token accepted, or the first grant out of order. */
function fencingFirstOfKind(result: CheckResult, kind: ViolationKind): string | undefined {
  const d = result.details as Partial<FencingDetails> | undefined;
  const stale = kind === 'stale' ? firstPair(d?.staleAccepted) : undefined;
  if (stale) return `the store accepted stale token ${stale.laterToken} after token ${stale.earlierToken}`;
  const grant = kind === 'regression' ? firstPair(d?.grantRegressions) : undefined;
  if (grant) return `the lock granted token ${grant.laterToken} after token ${grant.earlierToken}`;
  return undefined;
}

/** fencing speaks for the data: the tokens the store let in and the lock gave out. */
export const fencingWords: CheckerWords = {
  judges: 'data',
  violations: fencingViolations,
  firstOfKind: fencingFirstOfKind,
};
