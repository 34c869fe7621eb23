/**
 * A CommonJS package loaded by require, not import: Node 20's import of one runs
 * cjs-module-lexer over each of its modules, which require does not (ioredis 186-192 ms of
 * CPU by import, 97-103 by require; etcd3 298-310 against 215-232), and every client worker
 * of every run pays it. Give the package's types: `requirePackage<typeof import('ioredis')>`.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function requirePackage<T>(name: string): T {
  return require(name) as T;
}
