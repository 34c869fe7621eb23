// `node --import ./register.mjs ...`: log every module the process loads (see hooks.mjs).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
