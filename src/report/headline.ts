/**
 * The report's first line: the verdict in one sentence that names the fault in effect and
 * what it cost the data, so that a reader knows what happened before reading on.
 *
 * - invalid: the first counted violation's holders, the fault in effect then (the one that
 *   hit a holder first), and the lost-updates count ("process 2 paused for 1.49 s
 *   (client-pause) outlived its lease; process 1 acquired; 8 acknowledged adds lost").
 *   With adds lost, the overlap named is the one the loss came from (lossCause): the first
 *   overlap may be another pause's, whose holder's write had landed before it;
 * - valid and fenced, with a write the store rejected: why it is valid ("process 2's stale
 *   write (token 17) was rejected by the store after it paused 1.50 s (client-pause); no
 *   acknowledged add lost");
 * - valid otherwise: what was survived and what was kept;
 * - unknown: what evidence was missing, or which conditions the run did not run as
 *   configured under.
 *
 * Pure: from the report's data (violations placed on the timeline, fault windows, op times)
 * and the stored checker results, read through their checkers' words (checker-words.ts).
 */
import type { DataFate } from '../../checkers/checker-words.js';
import { decodeGrant } from '../../checkers/op-values.js';
import type { CheckResult, Validity } from '../../checkers/result.js';
import { firstSaid } from '../../checkers/words-registry.js';
import type { RunCondition } from '../run-data/conditions.js';
import { plural } from '../util/plural.js';
import { BAR_OUTCOMES } from './bar-words.js';
import type { Bar, Fault, ReportData, Violation } from './report-data-types.js';

export interface HeadlineRun {
  valid: Validity;
  fencing: boolean;
  results: readonly CheckResult[];
  conditions: readonly RunCondition[];
}

/** A length of time in words: milliseconds under a second, else seconds to two places. */
export const duration = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

/** When an op (by its history index) happened, in ms: its bar's start or end; undefined if not drawn. */
function opTime(data: ReportData, index: number): number | undefined {
  for (const b of data.bars) {
    if (b[5] === index) return b[3];
    if (b[6] === index) return b[4] < 0 ? undefined : b[4];
  }
  return undefined;
}

const faultEnd = (data: ReportData, f: Fault) => (f.endMs < 0 ? data.endMs : f.endMs);
/**
 * How long a fault kept its client: the hit's own length where it caught one at a point
 * (a dropped request kept nobody: its window, the wait for the request), else its window.
 */
const faultLength = (data: ReportData, f: Fault) =>
  duration(f.heldMs !== undefined && f.heldUntil !== 'dropped' ? f.heldMs : faultEnd(data, f) - f.startMs);

/** A fault in words without its kind: whom and how, from its label (its planned length left out). */
function faultDetail(f: Fault): string[] {
  return f.label
    .split(' · ')
    .slice(1)
    .filter((p) => !/^\d+ ms$/.test(p));
}

/** "partition (halves, 1.20 s)": a fault by its kind, whom and how it hit, and how long it lasted. */
function faultWords(data: ReportData, f: Fault): string {
  return `${f.f} (${[...faultDetail(f), faultLength(data, f)].join(', ')})`;
}

/**
 * What process `p` went through under fault `f` that hit it: "paused for 1.49 s
 * (client-pause)", or for another kind "was hit by client-clock (…) for 1.00 s".
 */
function suffered(data: ReportData, f: Fault): string {
  if (f.f === 'client-pause') return `paused for ${faultLength(data, f)} (client-pause)`;
  const how = faultDetail(f).filter((d) => d !== `process ${f.process}`);
  return `was hit by ${f.f}${how.length ? ` (${how.join(', ')})` : ''} for ${faultLength(data, f)}`;
}

/** The faults in effect at some time in [from, to] ms. */
const inEffect = (data: ReportData, from: number, to: number) =>
  data.faults.filter((f) => f.startMs <= to && faultEnd(data, f) >= from);

/** The process of an op (by its history index), from the lane of its bar; undefined if not drawn. */
function opProcess(data: ReportData, index: number): number | undefined {
  const bar = data.bars.find((b) => b[5] === index || b[6] === index);
  return bar === undefined ? undefined : data.lanes[bar[0]]?.process;
}

/**
 * The fault the first lost add came from: of the process whose write overwrote it, or of
 * the writer that lost it, the one that began last at or before the overwriting write (a
 * holder paused after reading writes a stale set when it wakes; a stale holder's add is
 * overwritten by the holder that read before it). Undefined when no such fault is known.
 */
function lossCause(data: ReportData): Fault | undefined {
  const lost = data.violations.find((v) => v.counted && v.kind === 'lost');
  const [written, overwrite] = lost?.marks ?? [];
  if (!written || !overwrite) return undefined;
  const at = opTime(data, overwrite.index);
  if (at === undefined) return undefined;
  const overwriter = opProcess(data, overwrite.index);
  const writer = opProcess(data, written.index);
  const candidates = data.faults.filter(
    (f) => f.process !== undefined && (f.process === overwriter || f.process === writer) && f.startMs <= at,
  );
  // The latest to begin; on a tie, the overwriter's.
  return candidates.reduce<Fault | undefined>(
    (best, f) =>
      !best || f.startMs > best.startMs || (f.startMs === best.startMs && f.process === overwriter) ? f : best,
    undefined,
  );
}

/** Whether overlap v's first holder is the process fault f hit, and f came while it held. */
function overlapOf(data: ReportData, v: Violation, f: Fault): boolean {
  const [first] = v.processes as [number, number];
  const [, o1] = v.overlap as [number, number];
  const firstStart = v.holds?.[0]?.[1] ?? 0;
  return first === f.process && f.startMs <= o1 && faultEnd(data, f) >= firstStart;
}

/**
 * An overlap of holds and the fault that explains it: one that hit a holder (a paused
 * client) while both held, else any in effect while both held, else any during the
 * earlier holder's hold.
 */
function overlapCause(data: ReportData, v: Violation): string {
  return overlapAndFault(data, v).words;
}

/**
 * Another process's release, caught on the wire (a `wire:` fault held its request, or dropped
 * it and the library sent another) while its lease ran out, that landed while `v`'s earlier
 * holder held the lock, before the later one's grant: what the library did, not only the
 * fault (redis-lock's DEL without an ownership check deleted the next holder's lock, and a
 * third acquired; retrylock's retry, a plain DEL, did so, and the releaser acquired next).
 */
function heldRelease(
  data: ReportData,
  v: Violation,
): { fault: Fault; process: number; how: string; endMs: number } | undefined {
  const [holder] = v.processes as [number, number];
  const holdStart = v.holds?.[0]?.[1];
  // Answered by the end of the overlap: the delete landed before the next grant, but its
  // answer can reach the history a moment after it (mutual-exclusion's releasedUnder).
  const overlapEnd = v.overlap?.[1];
  const release = data.fs.indexOf('release');
  if (holdStart === undefined || overlapEnd === undefined || release < 0) return undefined;
  // When the holder's own release found the lock gone, it lost the lock between its grant's
  // request and that answer: a delete answered in that span counts (as releasedUnder).
  const [lane, , holdEnd] = v.holds?.[0] ?? [];
  const own = data.bars.find((b) => b[0] === lane && b[1] === release && b[3] === holdEnd);
  const lost = own !== undefined && BAR_OUTCOMES[own[2]] !== 'ok';
  const grant = data.bars.find((b) => b[0] === lane && b[1] === data.fs.indexOf('acquire') && b[4] === holdStart);
  const answeredFrom = lost && grant ? grant[3] : holdStart;
  const answeredBy = lost && own ? Math.max(overlapEnd, own[4]) : overlapEnd;
  for (const b of data.bars) {
    const [lane, f, outcome, start, end] = b;
    const p = data.lanes[lane]?.process;
    // The releaser itself may be the next to acquire: its late release returned, and it went on.
    if (f !== release || BAR_OUTCOMES[outcome] !== 'ok' || p === undefined || p === holder) continue;
    if (!(start < holdStart && end >= answeredFrom && end <= answeredBy)) continue;
    const fault = data.faults.find((x) => x.f === 'wire' && x.process === p && x.startMs >= start && x.startMs <= end);
    const how = fault && faultDetail(fault).find((d) => / at /.test(d));
    if (fault && how) return { fault, process: p, how, endMs: end };
  }
  return undefined;
}

/**
 * The later holder of overlap `v` took its token in a request of its own after the lock was
 * its, and a `wire:` fault held that request while the earlier holder acquired: its token
 * came out larger than the earlier holder's (simple-redis-mutex's INCR after its SET).
 */
function tokenAfterGrant(
  data: ReportData,
  v: Violation,
): { fault: Fault; how: string; tokens: [number, number] } | undefined {
  const [first, second] = v.processes as [number, number];
  const holdOf = (p: number, start: number | undefined) =>
    data.holds.find((h) => data.lanes[h[0]]?.process === p && h[1] === start);
  const earlier = holdOf(first, v.holds?.[0]?.[1]);
  const later = holdOf(second, v.holds?.[1]?.[1]);
  if (!earlier || !later || earlier[5] < 0 || later[5] <= earlier[5]) return undefined;
  const acquire = data.bars.find((b) => b[6] === later[3]);
  if (!acquire) return undefined;
  const fault = data.faults.find(
    (f) => f.f === 'wire' && f.process === second && f.startMs >= acquire[3] && f.startMs <= later[1],
  );
  const how = fault && faultDetail(fault).find((d) => / at /.test(d));
  return fault && how ? { fault, how, tokens: [earlier[5], later[5]] } : undefined;
}

/** A time on the run's clock in words: "at 2.31 s". */
const at = (ms: number) => `at ${(ms / 1000).toFixed(2)} s`;

/** The validity an extension's bar carries (its ok value, `{validityMs}`), when it carries one. */
function extensionValidity(bar: Bar): number | undefined {
  try {
    return decodeGrant(JSON.parse(bar[7])).validityMs;
  } catch {
    return undefined;
  }
}

/**
 * The earlier holder of overlap `v` went on using the lock after its library's extension
 * failed, or after its extensions stopped coming and their lease ran out, and it wrote
 * while the later holder held the lock: the library did not tell its holder (a failed
 * auto-extension only logged). A holder a client pause stopped meanwhile is the pause's
 * (it could not extend); said as such elsewhere.
 */
function extensionUnseen(data: ReportData, v: Violation): string | undefined {
  const [first, second] = v.processes as [number, number];
  const [o0, o1] = v.overlap as [number, number];
  const firstStart = v.holds?.[0]?.[1] ?? o0;
  const extend = data.fs.indexOf('extend');
  const write = data.fs.indexOf('write');
  if (extend < 0 || write < 0) return undefined;
  const mine = data.bars.filter((b) => data.lanes[b[0]]?.process === first && b[3] >= firstStart && b[3] <= o1);
  const wroteAfter = (t: number) => mine.find((b) => b[1] === write && b[3] > t);
  const tail = (w: Bar) =>
    `it went on holding the lock and wrote ${at(w[3])}; process ${second} acquired while process ${first} still held it`;
  const failed = mine.find((b) => b[1] === extend && BAR_OUTCOMES[b[2]] === 'fail');
  const wroteAfterFailure = failed && wroteAfter(failed[3]);
  if (failed && wroteAfterFailure) {
    const why = failed[8] ? ` (${failed[8]})` : '';
    return `process ${first}'s extension failed ${at(failed[3])}${why} and the holder was not told: ${tail(wroteAfterFailure)}`;
  }
  const last = mine.filter((b) => b[1] === extend && BAR_OUTCOMES[b[2]] === 'ok' && b[3] <= o0).at(-1);
  const validityMs = last && extensionValidity(last);
  if (!last || validityMs === undefined) return undefined;
  const ranOut = (last[4] < 0 ? last[3] : last[4]) + validityMs;
  if (ranOut > o0) return undefined;
  const paused = data.faults.some(
    (f) => f.f === 'client-pause' && f.process === first && f.startMs <= o0 && faultEnd(data, f) >= last[3],
  );
  const wrote = wroteAfter(ranOut);
  if (paused || !wrote) return undefined;
  return `process ${first}'s extensions stopped ${at(last[3])} (its lease ran out ${at(ranOut)}) and the holder was not told: ${tail(wrote)}`;
}

/**
 * The later holder of overlap `v` was stopped inside its acquire (a pause at a point its
 * library announced, a request of its held on the wire) from before the earlier holder's
 * grant, and its acquire still answered ok: after the pause its library asked the server
 * nothing that told it the lock had changed hands (renewlock's PEXPIRE renews whichever key
 * stands). Only the fault that began inside the acquire counts: one that came before it
 * stopped a client that was not yet acquiring.
 */
function grantAfterHandover(data: ReportData, v: Violation): { fault: Fault; how: string } | undefined {
  const [, second] = v.processes as [number, number];
  const firstStart = v.holds?.[0]?.[1];
  const later = data.holds.find((h) => data.lanes[h[0]]?.process === second && h[1] === v.holds?.[1]?.[1]);
  const acquire = later && data.bars.find((b) => b[6] === later[3]);
  if (firstStart === undefined || !later || !acquire) return undefined;
  const fault = data.faults.find(
    (f) =>
      (f.f === 'wire' || f.f === 'client-pause') &&
      f.process === second &&
      f.startMs >= acquire[3] &&
      f.startMs <= firstStart,
  );
  const how = fault && faultDetail(fault).find((d) => /(^| )at /.test(d));
  // A wire stop let the request land first: a holder stopped past its lease, not this.
  return fault && how && !how.startsWith('stop ') ? { fault, how } : undefined;
}

/** What the library did in overlap `v`, where a fault shows it: a late token, a late release, a late grant. */
function libraryMechanism(data: ReportData, v: Violation): boolean {
  return (
    tokenAfterGrant(data, v) !== undefined ||
    heldRelease(data, v) !== undefined ||
    grantAfterHandover(data, v) !== undefined
  );
}

function overlapAndFault(data: ReportData, v: Violation): { words: string; fault?: Fault } {
  const [first, second] = v.processes as [number, number];
  const [o0, o1] = v.overlap as [number, number];
  const firstStart = v.holds?.[0]?.[1] ?? o0;
  const taken = tokenAfterGrant(data, v);
  if (taken) {
    const [mode, request] = taken.how.split(' at ') as [string, string];
    return {
      words: `process ${second} took its token after its grant, in a separate request (its ${request}, held ${faultLength(data, taken.fault)} (wire ${mode})), and got one larger than the holder's: token ${taken.tokens[1]} over process ${first}'s ${taken.tokens[0]}`,
      fault: taken.fault,
    };
  }
  const unseen = extensionUnseen(data, v);
  if (unseen) return { words: unseen };
  const released = heldRelease(data, v);
  if (released) {
    const [mode, request] = released.how.split(' at ') as [string, string];
    if (mode === 'drop') {
      // Dropped, the request never landed: what deleted the lock is what the library sent after.
      return {
        words: `process ${released.process}'s release, its ${request} dropped on the wire (wire drop), went on for ${duration(released.endMs - released.fault.startMs)} and ended after its lease had run out, deleting process ${first}'s lock; process ${second} acquired while process ${first} still held it`,
        fault: released.fault,
      };
    }
    return {
      words: `process ${released.process}'s ${request}, held ${faultLength(data, released.fault)} (wire ${mode}) as it released, landed after its lease had run out and deleted process ${first}'s lock; process ${second} acquired while process ${first} still held it`,
      fault: released.fault,
    };
  }
  const late = grantAfterHandover(data, v);
  if (late) {
    return {
      words: `process ${second} was stopped inside its acquire (${late.fault.f} ${late.how}, ${faultLength(data, late.fault)}) until process ${first} had the lock, and went on: its acquire answered ok, as if the lock were still its own, while process ${first} held it`,
      fault: late.fault,
    };
  }
  const during = inEffect(data, o0, o1);
  const hitHolder =
    during.find((f) => f.process === first) ??
    inEffect(data, firstStart, o1).find((f) => f.process === first) ??
    during.find((f) => f.process === second);
  if (hitHolder?.process === first) {
    return {
      words: `process ${first} ${suffered(data, hitHolder)} outlived its lease; process ${second} acquired`,
      fault: hitHolder,
    };
  }
  const both = `process ${second} acquired while process ${first} still held the lock`;
  if (hitHolder) return { words: `${both}: process ${second} ${suffered(data, hitHolder)}`, fault: hitHolder };
  const any = during[0] ?? inEffect(data, firstStart, o1)[0];
  return any
    ? { words: `${both}, during ${faultWords(data, any)}`, fault: any }
    : { words: `${both}, with no fault in effect` };
}

/** " after process 1 paused for 1.20 s (client-pause)": the loss's cause, when the sentence has not named it. */
const lossAfter = (data: ReportData, f: Fault) => ` after process ${f.process} ${suffered(data, f)}`;

/** What became of the data, by the first checker that tells: "8 acknowledged adds lost"; undefined when none does. */
const dataFate = (results: readonly CheckResult[]): DataFate | undefined =>
  firstSaid(results, (w, r) => w.dataFate?.(r));

/** A fault in effect around a violation's marks, as ", during …"; '' when none. */
function faultAround(data: ReportData, v: Violation): string {
  const times = v.marks.map((m) => opTime(data, m.index)).filter((t): t is number => t !== undefined);
  if (times.length === 0) return '';
  const f = inEffect(data, Math.min(...times), Math.max(...times))[0];
  return f ? `, during ${faultWords(data, f)}` : ', with no fault in effect';
}

/** A stale token's or a grant regression's violation in its checker's short words, else the violation's own. */
function stalePhrase(results: readonly CheckResult[], v: Violation): string {
  return firstSaid(results, (w, r) => w.firstOfKind?.(r, v.kind)) ?? v.words;
}

function invalidSentence(run: HeadlineRun, data: ReportData): string {
  const counted = data.violations.filter((v) => v.counted);
  const first = counted[0];
  const loss = lossCause(data);
  const overlaps = [...counted, ...data.violations.filter((v) => !v.counted)].filter(
    (v) => v.kind === 'overlap' && v.processes,
  );
  // One that shows what the library did; else the overlap the loss came from, if one is
  // placed (the loss may follow from the first: a stale holder's write); else the first.
  const overlap =
    overlaps.find((v) => v.counted && libraryMechanism(data, v)) ??
    (loss && overlaps.find((v) => overlapOf(data, v, loss))) ??
    overlaps[0];
  const explained = overlap ? overlapAndFault(data, overlap) : undefined;
  // The loss's own cause, when the overlap named is not of it.
  const lossWords = loss && explained?.fault !== loss ? lossAfter(data, loss) : '';
  // A checker that speaks in the words of what failed (a client program's library, broken under a fault).
  const program = counted.find((v) => v.ownWords);
  const programWords = program && program !== first ? `; ${program.words}` : '';
  // With fencing, the token the store let in is how the data was lost: said before the loss.
  const stale = counted.find((v) => v.kind === 'stale') ?? counted.find((v) => v.kind === 'regression');
  const parts: string[] = [];
  if (explained) parts.push(explained.words);
  if (stale) {
    parts.push(stalePhrase(run.results, stale) + (overlap ? '' : faultAround(data, stale)));
  } else if (first && first.kind === 'other') {
    parts.push(first === program ? first.words : `${first.checker}: ${first.words}`);
  } else if (first && !overlap) {
    const fate = dataFate(run.results)?.words;
    const lost = first.kind === 'lost' && fate ? fate : first.words;
    return lost + (first.kind === 'lost' && lossWords ? lossWords : faultAround(data, first)) + programWords;
  } else if (!first) {
    const bad = run.results.find((r) => r.counts !== false && r.valid === false);
    parts.push(bad ? `${bad.checker}: ${bad.summary}` : 'a counted checker found a violation');
  }
  const fate = dataFate(run.results);
  if (fate) parts.push(lossWords && !fate.intact ? fate.words + lossWords : fate.words);
  return parts.join('; ') + programWords;
}

function validSentence(run: HeadlineRun, data: ReportData): string {
  const fate = dataFate(run.results);
  const turnedAway = run.fencing ? firstSaid(run.results, (w, r) => w.turnedAway?.(r)) : undefined;
  const keptData = fate?.words;
  if (turnedAway) {
    const rejected = turnedAway.first;
    const at = opTime(data, rejected.index) ?? data.endMs;
    const before = data.faults.filter((f) => f.startMs <= at);
    const own = before.filter((f) => f.process === rejected.process).at(-1);
    const other = before.at(-1);
    const token = rejected.token === undefined ? '' : ` (token ${rejected.token})`;
    const more = turnedAway.count - 1;
    let s = `process ${rejected.process}'s stale write${token} was rejected by the store`;
    if (own) {
      s +=
        own.f === 'client-pause'
          ? ` after it paused ${faultLength(data, own)} (client-pause)`
          : ` after it ${suffered(data, own)}`;
    } else if (other) s += ` after ${faultWords(data, other)}`;
    if (more > 0) s += `; ${plural(more, 'more stale write')} rejected`;
    return keptData ? `${s}; ${keptData}` : s;
  }
  const overlap = data.violations.find((v) => v.kind === 'overlap' && v.processes);
  if (overlap) {
    const held = overlapCause(data, overlap);
    const safe = run.fencing ? 'no stale token accepted' : 'not counted';
    return `${held}; ${[safe, keptData].filter(Boolean).join(', ')}`;
  }
  const exclusive = firstSaid(run.results, (w, r) => w.exclusion?.(r)) ?? 'no counted checker found a violation';
  const byKind = new Map<string, number>();
  for (const f of data.faults) byKind.set(f.f, (byKind.get(f.f) ?? 0) + 1);
  const through =
    byKind.size === 0
      ? ' with no fault injected'
      : ` through ${[...byKind].map(([kind, n]) => `${plural(n, `${kind} fault`)}`).join(', ')}`;
  const kept = fate?.intact ? (fate.kept ?? fate.words) : fate?.words;
  return `${exclusive}${through}${kept ? `; ${kept}` : ''}`;
}

/**
 * The conditions as the headline names them: all of one or two, else the first and how
 * many more (a condition per client once made a 700-character first sentence); the
 * report's banner and results.json list every one.
 */
export function conditionsClause(conditions: readonly RunCondition[]): string {
  const [first] = conditions;
  if (!first) return '';
  const named =
    conditions.length <= 2
      ? conditions.map((c) => c.message).join('; ')
      : `${first.message}; and ${conditions.length - 1} more`;
  return `not run as configured: ${named}`;
}

/**
 * The headline without the conditions it names, which the lines above it list: the reason
 * a client program broke was printed twice. What is left starts with a capital.
 */
export function headlineWithoutConditions(headline: string, conditions: readonly RunCondition[]): string {
  const clause = conditionsClause(conditions);
  if (!clause) return headline;
  const cap = (t: string) => `${t.charAt(0).toUpperCase()}${t.slice(1)}`;
  const lower = `${clause.charAt(0).toLowerCase()}${clause.slice(1)}`;
  const rest = headline
    .replace(`; ${lower}`, '')
    .replace(`${cap(lower)}; `, '')
    .replace(`${cap(lower)}.`, '')
    .trim();
  return rest === '' ? headline : cap(rest);
}

function unknownSentence(run: HeadlineRun): string {
  const undecided = run.results.filter((r) => r.counts !== false && r.valid === 'unknown');
  const why =
    firstSaid(undecided, (w, r) => w.undecided?.(r)) ??
    undecided.map((r) => `${r.checker} could not decide: ${r.summary}`).join('; ');
  if (run.conditions.length === 0) return why || 'the checkers could not decide';
  const conditions = conditionsClause(run.conditions);
  return why
    ? `${conditions}; ${why}`
    : `${conditions}; no violation in what did run, which is not evidence for this configuration`;
}

/** The verdict in one sentence, starting with a capital and ending with a full stop. */
export function headline(run: HeadlineRun, data: ReportData): string {
  let s: string;
  if (run.valid === false) {
    s = invalidSentence(run, data);
    if (run.conditions.length > 0) s += `; ${conditionsClause(run.conditions)}`;
  } else if (run.valid === true) s = validSentence(run, data);
  else s = unknownSentence(run);
  s = s.trim();
  return `${s.charAt(0).toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}`;
}
