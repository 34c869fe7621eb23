/**
 * The --nemesis spec: 'none', or fault kinds separated by commas, each with an optional
 * aim after a colon: `pause-node:leader,partition:majorities-ring,kill-node`. Parsed here
 * into a list; a bad spec is one line that lists what is allowed. The kinds and
 * their aims are the registry's (kinds/index.ts).
 */
import { nearestOr } from '../util/did-you-mean.js';
import { UserError } from '../util/errors.js';
import type { FaultKindModule, FaultSpec } from './kind.js';
import { FAULT_KIND_MODULES } from './kinds/index.js';

export type { FaultSpec } from './kind.js';

/** The name of a registered fault kind. */
export type FaultKind = (typeof FAULT_KIND_MODULES)[number]['name'];

/** Every fault kind by name: the aims it takes (first = default), its modes, what it does. */
export const FAULT_KINDS = Object.fromEntries(
  FAULT_KIND_MODULES.map((m) => [
    m.name,
    {
      aims: 'moreAims' in m && m.moreAims ? [...m.aims, m.moreAims.form] : m.aims,
      ...('modes' in m && m.modes ? { modes: m.modes } : {}),
      what: m.what,
    },
  ]),
) as Record<FaultKind, { aims: readonly string[]; modes?: readonly string[]; what: string }>;

/** The kind's module by name; undefined for a name no kind has (an older record's). */
export const faultKindModule = (name: string): FaultKindModule | undefined =>
  FAULT_KIND_MODULES.find((k) => k.name === name);

/** A fault kind of a spec, parsed, with its kind's module. */
export interface ParsedFault {
  spec: FaultSpec;
  module: FaultKindModule;
}

/** The spec's fault kinds, as FaultSpecs. */
export const parseNemesisSpec = (spec: string): FaultSpec[] => parseFaults(spec).map((f) => f.spec);

/** The spec's fault kinds, each with its module; a bad spec is one UserError line. */
export function parseFaults(spec: string): ParsedFault[] {
  const text = spec.trim();
  if (text === '' || text === 'none') return [];
  const seen = new Set<string>();
  return text.split(',').map((part) => {
    const [rawKind = '', aim, mode, ...extra] = part.trim().split(':');
    const module = faultKindModule(rawKind.trim());
    if (!module) {
      throw new UserError(
        `unknown nemesis '${rawKind}' in --nemesis '${spec}'${nearestOr(rawKind.trim(), Object.keys(FAULT_KINDS), `choose none or some of ${Object.keys(FAULT_KINDS).join(', ')}`)}`,
      );
    }
    const kind = module.name;
    const allowed = module.aims;
    const modes = module.modes ?? [];
    const badMode = mode !== undefined && !modes.includes(mode) && !(module.moreModes?.test(mode) ?? false);
    const knownAim = (t: string) => allowed.includes(t) || (module.moreAims?.test(t) ?? false);
    if (extra.length > 0 || badMode || (aim !== undefined && !knownAim(aim))) {
      const forms = allowed.map((t) => `${kind}:${t}`);
      if (module.moreAims) forms.push(`${kind}:${module.moreAims.form}`);
      if (modes.length > 0)
        forms.push(`${kind}:<aim>:${[...modes, ...(module.moreModes ? [module.moreModes.form] : [])].join('|')}`);
      throw new UserError(
        `bad aim '${part.slice(rawKind.length + 1)}' for ${kind} in --nemesis '${spec}'${nearestOr(part.trim(), forms, `use ${forms.join(', ')}`)}`,
      );
    }
    if (seen.has(kind)) throw new UserError(`--nemesis '${spec}' names ${kind} twice: give each fault kind once`);
    seen.add(kind);
    const parsed: FaultSpec = { kind, aim: aim ?? (allowed[0] as string) };
    if (modes.length > 0) parsed.mode = (mode ?? modes[0]) as FaultSpec['mode'];
    const refused = module.refuse?.(parsed);
    if (refused) throw new UserError(`--nemesis '${spec}': ${refused}`);
    return { spec: parsed, module };
  });
}
