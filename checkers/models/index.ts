/**
 * The registry of models: adding one is its file plus a line here.
 */
import type { Op } from '../../src/history/op.js';
import { UserError } from '../../src/util/errors.js';
import { casRegister } from './cas-register.js';
import { fencedRegister } from './fenced-register.js';
import { kv } from './kv.js';
import type { AnyModel, Model } from './linearizable-model.js';
import { mutex } from './mutex.js';
import { mutexAnon } from './mutex-anon.js';
import { register } from './register.js';

export type { Model } from './linearizable-model.js';

export const MODELS: Readonly<Record<string, AnyModel>> = {
  mutex,
  'mutex-anon': mutexAnon,
  register,
  'cas-register': casRegister,
  'fenced-register': fencedRegister,
  kv,
};

export const MODEL_NAMES: readonly string[] = Object.keys(MODELS);

export function findModel(name: string): Model<unknown> | undefined {
  return Object.hasOwn(MODELS, name) ? MODELS[name] : undefined;
}

/**
 * The model a history most likely means, from its client operations' f values:
 * acquire/release → mutex; get/put/append → kv; cas → cas-register; writes whose values are
 * all [V, number] → fenced-register; other reads and writes → register; operations of none
 * of these, a UserError. A register of 2-element arrays ending in a number looks fenced: name
 * the model with --model then.
 */
export function guessModel(history: readonly Op[]): { model: Model<unknown>; why: string } {
  const fs = new Set<string>();
  let writes = 0;
  let tokenWrites = 0;
  for (const op of history) {
    if (op.process === 'nemesis') continue;
    fs.add(op.f);
    if (op.f === 'write' && op.type === 'invoke') {
      writes++;
      const v = op.value;
      if (Array.isArray(v) && v.length === 2 && typeof v[1] === 'number') tokenWrites++;
    }
  }
  if (fs.has('acquire') || fs.has('release')) return { model: mutex, why: 'operations acquire/release' };
  if (fs.has('get') || fs.has('put') || fs.has('append')) return { model: kv, why: 'operations get/put/append' };
  if (fs.has('cas')) return { model: casRegister, why: 'operation cas' };
  if (writes > 0 && tokenWrites === writes) return { model: fencedRegister, why: 'writes of [value, token]' };
  if (fs.size > 0 && !fs.has('read') && !fs.has('write')) {
    // Knossos's multi-register (txn), a queue, a set: none of ours.
    throw new UserError(
      `no model knows the operations ${[...fs].sort().join(', ')} (${MODEL_NAMES.map((name) => `${name}: ${MODELS[name].fs.join('/')}`).join('; ')}): check a history of one of these`,
    );
  }
  return { model: register, why: fs.size === 0 ? 'no client operations' : 'operations read/write' };
}
