// Module hooks for lazy-imports.test.ts: every module resolved, appended to a file.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.LOCKCHAOS_MODULE_LOG, `${resolved.url}\n`);
  return resolved;
}
