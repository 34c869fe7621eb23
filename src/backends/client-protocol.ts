/**
 * The client protocol (docs/client-protocol.md): how lockchaos drives a lock client written
 * in any language, after Maelstrom's: JSON objects, one per line, the harness's requests
 * on the client's stdin and the client's answers on its stdout (its stderr is its own log).
 *
 *   harness → {"type":"init","protocol":1,"client":"c0","backend":"redis","nodes":[{"name":"redis-1","host":"172.18.0.2","port":6379}]}
 *   client  → {"type":"init_ok","protocol":1,"name":"redis-py Lock"}
 *   harness → {"type":"acquire","id":1,"key":"lockchaos:lock","ttl_ms":2000,"timeout_ms":5000}
 *   client  → {"type":"ok","id":1,"token":17,"validity_ms":1990,"lease":"a1b2"}
 *   harness → {"type":"release","id":2,"key":"lockchaos:lock","lease":"a1b2"}
 *   client  → {"type":"ok","id":2}
 *
 * An answer is `ok`, `fail` (certainly not done: the lock was busy until the timeout, or
 * was no longer held at release) or `unknown` (it may or may not have happened: recorded
 * as `info`). This file holds the messages and what makes an answer well-formed; one
 * problem is one line, for the run's record and for `lockchaos client-check`.
 */

import { printable } from '../util/printable.js';

/**
 * What a client command is called in test names and campaign cell ids: its program's file
 * name without the extension (`node ./lock.mjs --verbose` → lock), or its folder's where
 * the file has a generic name (`python3 examples/clients/redis-py-lock/client.py` →
 * redis-py-lock), so that two clients of one backend are two configurations.
 */
export function clientProgramName(command: string): string {
  const words = command.trim().split(/\s+/);
  const program = words.filter((w) => !w.startsWith('-')).at(-1) ?? words[0] ?? '';
  const parts = program.split('/').filter(Boolean);
  const folder = parts.length > 1 ? parts.at(-2) : undefined;
  const name = (parts.at(-1) ?? program).replace(/\.(m?js|cjs|py|rb|sh|jar|exe)$/, '');
  const generic = /^(client|main|index|__main__|app|run|cli)$/.test(name);
  return generic && folder !== undefined && folder !== '.' && folder !== '..' ? folder : name;
}

/**
 * The protocol version this harness speaks: 2 adds the code points a program announces
 * (`at`, answered `go`), the session's TTL and the timeouts at init, and `init_fail`.
 * A program that answers init_ok with protocol 1 is spoken to in version 1 (it announces
 * nothing, and reads nothing new).
 */
export const PROTOCOL_VERSION = 2;
export const PROTOCOL_VERSIONS = [1, 2] as const;

export interface InitRequest {
  type: 'init';
  protocol: number;
  /** The client's name in owner values and logs ("c3"). */
  client: string;
  /** The backend whose servers it talks to (a built-in name or a module backend's name). */
  backend: string;
  nodes: { name: string; host: string; port: number }[];
  /** The backend's own options (`--backend-options`), as given. */
  options: Record<string, string>;
  /** The run's lease (--ttl): a library that fixes its TTL when its session is made takes it here. */
  ttl_ms: number;
  /** How long one request to a server may take (--request-timeout). */
  request_timeout_ms: number;
  /** How long an acquire may wait for the lock (--acquire-timeout); each acquire also says it. */
  acquire_timeout_ms: number;
  /** How long a release may take before the program counts as hung (--release-timeout). */
  release_timeout_ms: number;
  /** What to log in with, where the backend's servers ask for a login (Backend.clientLogin). */
  login?: { user: string; password?: string; database?: string };
}

export interface AcquireRequest {
  type: 'acquire';
  id: number;
  key: string;
  ttl_ms: number;
  timeout_ms: number;
}

export interface ReleaseRequest {
  type: 'release';
  id: number;
  key: string;
  /** What the acquire's ok gave as `lease`, given back as it was (absent if it gave none). */
  lease?: unknown;
}

export type Request = InitRequest | AcquireRequest | ReleaseRequest;

export interface InitOk {
  type: 'init_ok';
  protocol: number;
  name?: string;
}

/** A program that will not drive this run (another backend, an option it lacks) says why. */
export class InitDeclined extends Error {
  override name = 'InitDeclined';
}

/** A code point a program announces (protocol 2): `{"type":"at","point":"after-grant"}`. */
export const POINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * The most distinct points one program counts: a library has a handful (a check, a write,
 * an extension). Past it a program's new names are answered `go` at once and not counted:
 * one that announced 200,000 ended its run in a RangeError, and 20,000 names per acquire
 * made a summary of 60,007 lines. Its verdict stays; the run says so once.
 */
export const MAX_PROGRAM_POINTS = 64;

/** The point an `at` line names; undefined if the line is not one; a ProtocolError if it names none well. */
export function parseAt(m: Record<string, unknown>): string | undefined {
  if (m.type !== 'at') return undefined;
  if (typeof m.point !== 'string' || !POINT_NAME.test(m.point)) {
    throw new ProtocolError(
      `an "at" with point ${JSON.stringify(m.point)}: name a point with letters, digits, '.', '_' or '-' (at most 64)`,
    );
  }
  return m.point;
}

/**
 * What a library did with its lease on its own, between requests (protocol 2): it
 * extended it (`{"type":"extended","validity_ms":N}`: the lease now lasts N ms from now;
 * without validity_ms, the run's ttl_ms), or its extension failed
 * (`{"type":"extend_failed","error":"..."}`). The history records it, so that the checkers
 * date the lease from its last extension, not from the acquire.
 */
export type Extension = { extended: true; validityMs?: number } | { extended: false; error: string };

/** The extension an `extended` or `extend_failed` line reports; undefined if the line is neither; a ProtocolError if it is badly formed. */
export function parseExtension(m: Record<string, unknown>): Extension | undefined {
  if (m.type === 'extend_failed') {
    return { extended: false, error: typeof m.error === 'string' && m.error !== '' ? m.error : 'no error given' };
  }
  if (m.type !== 'extended') return undefined;
  if (m.validity_ms === undefined || m.validity_ms === null) return { extended: true };
  if (typeof m.validity_ms !== 'number' || !Number.isFinite(m.validity_ms) || m.validity_ms < 0) {
    throw new ProtocolError(
      `an "extended" with validity_ms ${printable(JSON.stringify(m.validity_ms))}: give the lease's new length in ms from now, a number >= 0, or leave it out (the run's ttl_ms)`,
    );
  }
  return { extended: true, validityMs: m.validity_ms };
}

export type Answer =
  | { type: 'ok'; id: number; token?: number; validity_ms?: number; lease?: unknown }
  | { type: 'fail'; id: number; error: string }
  | { type: 'unknown'; id: number; error: string };

/** A line that is not a well-formed answer: what is wrong, in one line. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

/** A client's line in a message: short, and printable (its escapes shown, not obeyed). */
const show = (raw: string) => {
  const line = printable(raw);
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
};

export function parseObject(line: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new ProtocolError(`not JSON: ${show(line)}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ProtocolError(`not a JSON object: ${show(line)}`);
  }
  return parsed as Record<string, unknown>;
}

/** The client's answer to init; a ProtocolError when it is not one this harness can speak with. */
export function parseInitOk(line: string): InitOk {
  const m = parseObject(line);
  if (m.type === 'init_fail') {
    const why = typeof m.error === 'string' && m.error !== '' ? m.error : 'no reason given';
    throw new InitDeclined(`the client program declined init: ${why}`);
  }
  if (m.type !== 'init_ok') throw new ProtocolError(`expected {"type":"init_ok",...} first, got: ${show(line)}`);
  if (!(PROTOCOL_VERSIONS as readonly unknown[]).includes(m.protocol)) {
    throw new ProtocolError(
      `init_ok speaks protocol ${JSON.stringify(m.protocol)}: this harness speaks ${PROTOCOL_VERSIONS.join(' and ')} (answer "protocol":${PROTOCOL_VERSION})`,
    );
  }
  if (m.name !== undefined && typeof m.name !== 'string') throw new ProtocolError('init_ok name is not a string');
  const protocol = m.protocol as number;
  return m.name === undefined ? { type: 'init_ok', protocol } : { type: 'init_ok', protocol, name: m.name as string };
}

/**
 * The client's answer to request `id` (acquire or release). A token must be a whole number
 * from 0 to 2^53-1 (a fencing token the store compares), a validity a number of ms >= 0.
 */
export function parseAnswer(line: string, id: number, request: 'acquire' | 'release'): Answer {
  const m = parseObject(line);
  if (m.id === undefined) throw new ProtocolError(`answer without an id: ${show(line)}`);
  if (m.id !== id)
    throw new ProtocolError(`answer for id ${JSON.stringify(m.id)} while ${id} was asked: ${show(line)}`);
  if (m.type === 'fail' || m.type === 'unknown') {
    const error = typeof m.error === 'string' && m.error !== '' ? m.error : `${m.type} (no error given)`;
    return { type: m.type, id, error };
  }
  if (m.type !== 'ok') {
    throw new ProtocolError(`unknown answer type ${JSON.stringify(m.type)} (ok, fail or unknown): ${show(line)}`);
  }
  const answer: Answer = { type: 'ok', id };
  if (request === 'acquire') {
    if (m.token !== undefined && m.token !== null) {
      if (typeof m.token !== 'number' || !Number.isSafeInteger(m.token) || m.token < 0) {
        throw new ProtocolError(
          `token ${printable(JSON.stringify(m.token))} is not an integer from 0 to 2^53-1: give the fencing token as one, or no token`,
        );
      }
      answer.token = m.token;
    }
    if (m.validity_ms !== undefined && m.validity_ms !== null) {
      if (typeof m.validity_ms !== 'number' || !Number.isFinite(m.validity_ms) || m.validity_ms < 0) {
        throw new ProtocolError(`validity_ms ${printable(JSON.stringify(m.validity_ms))} is not a number of ms >= 0`);
      }
      answer.validity_ms = m.validity_ms;
    }
    if (m.lease !== undefined) answer.lease = m.lease;
  }
  return answer;
}
