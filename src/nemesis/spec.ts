/**
 * The --nemesis spec: 'none', or fault kinds separated by commas, each with an optional
 * target after a colon: `pause-node:leader,partition:majorities-ring,kill-node`. Parsed
 * here into a list; a bad spec is one line that lists what is allowed. The kinds and
 * their targets are the registry's (kinds/index.ts).
 */
import { nearestOr } from '../util/did-you-mean.js';
import { UserError } from '../util/errors.js';
import type { FaultKindModule, FaultSpec } from './kind.js';
import { FAULT_KIND_MODULES } from './kinds/index.js';

export type { FaultSpec } from './kind.js';

/** The name of a registered fault kind. */
export type FaultKind = (typeof FAULT_KIND_MODULES)[number]['name'];

/** Every fault kind by name: the targets it takes (first = default), its modes, what it does. */
export const FAULT_KINDS = Object.fromEntries(
  FAULT_KIND_MODULES.map((m) => [
    m.name,
    {
      targets: 'moreTargets' in m && m.moreTargets ? [...m.targets, m.moreTargets.form] : m.targets,
      ...('modes' in m && m.modes ? { modes: m.modes } : {}),
      what: m.what,
    },
  ]),
) as Record<FaultKind, { targets: readonly string[]; modes?: readonly string[]; what: string }>;

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
    const [rawKind = '', target, mode, ...extra] = part.trim().split(':');
    const module = faultKindModule(rawKind.trim());
    if (!module) {
      throw new UserError(
        `unknown nemesis '${rawKind}' in --nemesis '${spec}'${nearestOr(rawKind.trim(), Object.keys(FAULT_KINDS), `choose none or some of ${Object.keys(FAULT_KINDS).join(', ')}`)}`,
      );
    }
    const kind = module.name;
    const allowed = module.targets;
    const modes = module.modes ?? [];
    const badMode = mode !== undefined && !modes.includes(mode) && !(module.moreModes?.test(mode) ?? false);
    const knownTarget = (t: string) => allowed.includes(t) || (module.moreTargets?.test(t) ?? false);
    if (extra.length > 0 || badMode || (target !== undefined && !knownTarget(target))) {
      const forms = allowed.map((t) => `${kind}:${t}`);
      if (module.moreTargets) forms.push(`${kind}:${module.moreTargets.form}`);
      if (modes.length > 0)
        forms.push(`${kind}:<target>:${[...modes, ...(module.moreModes ? [module.moreModes.form] : [])].join('|')}`);
      throw new UserError(
        `bad target '${part.slice(rawKind.length + 1)}' for ${kind} in --nemesis '${spec}'${nearestOr(part.trim(), forms, `use ${forms.join(', ')}`)}`,
      );
    }
    if (seen.has(kind)) throw new UserError(`--nemesis '${spec}' names ${kind} twice: give each fault kind once`);
    seen.add(kind);
    const parsed: FaultSpec = { kind, target: target ?? (allowed[0] as string) };
    if (modes.length > 0) parsed.mode = (mode ?? modes[0]) as FaultSpec['mode'];
    const refused = module.refuse?.(parsed);
    if (refused) throw new UserError(`--nemesis '${spec}': ${refused}`);
    return { spec: parsed, module };
  });
}
