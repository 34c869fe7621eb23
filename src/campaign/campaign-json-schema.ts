/**
 * The campaign file's JSON Schema, for editors (YAML language servers complete and check
 * a file whose first line is `# yaml-language-server: $schema=.../campaign.schema.json`).
 * Built from the same registries and parameter table that validation uses, so the two cannot
 * drift: a test compares it with the file shipped in examples/.
 */
import { WORKLOADS } from '../../workloads/index.js';
import { BACKENDS } from '../backends/index.js';
import { MODULE_PATH } from '../backends/module.js';
import { FAULT_KINDS } from '../nemesis/spec.js';
import { OPTION_PARAMETERS, type Parameter } from '../run-data/parameters.js';
import { SCENARIOS } from '../scenarios/index.js';
import { EXPECTATIONS } from './spec.js';

type Json = Record<string, unknown>;

const oneOrMany = (item: Json): Json => ({ anyOf: [item, { type: 'array', items: item, minItems: 1 }] });

/** A run option's type, from its row (run-data/parameters.ts), as the campaign's check has it. */
function optionSchema(p: Parameter): Json {
  if (p.type === 'switch') return { type: 'boolean' };
  if (p.type === 'string') return { type: 'string', ...(p.pattern ? { pattern: p.pattern } : {}) };
  if (p.type !== 'number') throw new Error(`run option ${p.flag}: a campaign takes no ${p.type} option`);
  const type = p.bounds?.integer ? 'integer' : 'number';
  return { type, ...(p.bounds?.zero ? { minimum: 0 } : { exclusiveMinimum: 0 }) };
}

export function campaignJsonSchema(): Json {
  const options: Json = {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(OPTION_PARAMETERS.map((p) => [p.flag, optionSchema(p)])),
  };
  const seed = { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 };
  const fencing = { enum: ['on', 'off', true, false] };
  const axes: Json = {
    backend: oneOrMany({
      anyOf: [
        { enum: Object.keys(BACKENDS) },
        {
          type: 'string',
          pattern: MODULE_PATH.source,
          description: "a backend module's path (./my-lock.mjs), taken from the campaign file's folder",
        },
      ],
    }),
    workload: oneOrMany({ enum: Object.keys(WORKLOADS) }),
    nemesis: oneOrMany({
      type: 'string',
      description: `none, or fault kinds separated by commas: ${Object.keys(FAULT_KINDS).join(', ')}`,
    }),
    scenario: oneOrMany({ enum: Object.keys(SCENARIOS) }),
    fencing: oneOrMany(fencing),
  };
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'lockchaos campaign',
    type: 'object',
    additionalProperties: false,
    required: ['matrix'],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' },
      description: { type: 'string' },
      shrink: {
        type: 'boolean',
        description: 'shrink every cell that expected valid and was invalid (lockchaos shrink)',
      },
      seeds: oneOrMany(seed),
      defaults: options,
      matrix: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          additionalProperties: false,
          properties: {
            ...axes,
            label: { type: 'string', pattern: '^[\\w.+=,-]+$' },
            seeds: oneOrMany(seed),
            expect: { enum: [...EXPECTATIONS] },
            options,
            explore: {
              type: 'object',
              additionalProperties: false,
              description:
                'explore instead of one fault (lockchaos explore): met when no configuration broke the lock (expect valid, the default), or when one did (expect invalid); give no nemesis or scenario',
              properties: {
                budget: {
                  anyOf: [
                    { type: 'integer', exclusiveMinimum: 0 },
                    { type: 'string', pattern: '^\\s*\\d+(\\.\\d+)?\\s*m\\s*$' },
                  ],
                  description: 'tries (12), or minutes ("20m"); default 30 tries',
                },
                'run-time': {
                  type: 'number',
                  exclusiveMinimum: 0,
                  description: "each try's time limit, s (default 8)",
                },
                'shrink-runs': {
                  type: 'integer',
                  minimum: 0,
                  description: "runs to shrink each point's violating try with (default 4; 0: none)",
                },
                'until-broken': {
                  type: 'boolean',
                  description: 'end at the first configuration that broke the lock, the rest of the budget unspent',
                },
              },
            },
            overrides: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['when', 'expect'],
                properties: {
                  when: {
                    type: 'object',
                    additionalProperties: false,
                    properties: { ...axes, seed: oneOrMany(seed) },
                  },
                  expect: { enum: [...EXPECTATIONS] },
                },
              },
            },
          },
        },
      },
    },
  };
}
