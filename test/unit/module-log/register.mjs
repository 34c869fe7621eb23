// `node --import ./register.mjs ...`: log every module the process loads (see hooks.mjs).
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

register('./hooks.mjs', import.meta.url);

// A require (createRequire's too: ioredis and etcd3 are loaded so) does not pass through
// the hooks in Node 20: its resolutions are logged here.
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (...args) {
  const path = resolveFilename.apply(this, args);
  appendFileSync(process.env.LOCKCHAOS_MODULE_LOG, `${path}\n`);
  return path;
};
