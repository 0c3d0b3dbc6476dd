// The two documents the bench's peers validate against, derived from the project's own sources and
// committed so that `pnpm bench` needs no generator at run time:
//
// - bench/prism/events-openapi.yaml: an OpenAPI 3.1 document of the events operation alone, from
//   spec/openapi.yaml, for the Prism row. Its schemas are the structural part of the spec's, converted as
//   tools/codegen converts them for json-schema.gen.ts: `x-limits` resolved from spec/data/limits.yaml,
//   `x-unknown-keys: failed|request` as `additionalProperties: false`, warning-severity patterns and `x-rules`
//   left out (Prism cannot check those, and they do not fail the request), case-insensitive enums as
//   patterns, integers bounded to ±2^53.
// - bench/conversion-event.schema.json: the JSON Schema of the event that the generator emits
//   (CONVERSION_EVENT_JSON_SCHEMA in packages/events-validators/src/generated/json-schema.gen.ts, not
//   exported by the package), for the `node:http + JSON.parse + ajv` reference row.
//
// `node --import tsx bench/prism/extract.ts` writes both; `--check` exits 1 when a committed file differs from
// what the sources give, or when the event schemas of the two documents differ (Prism and ajv must check the
// same thing). `pnpm bench` runs the check first and prints a line when a file is stale.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import YAML from 'yaml';
import {
  caseInsensitivePattern,
  KEEP,
} from '../../../../tools/codegen/src/emitters/events-validators/structural.js';
import { CONVERSION_EVENT_JSON_SCHEMA } from '../../../events-validators/src/generated/json-schema.gen.js';

type Node = Record<string, unknown>;

const at = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const SPEC = at('../../../../spec/openapi.yaml');
export const OPENAPI_FILE = at('./events-openapi.yaml');
export const JSON_SCHEMA_FILE = at('../conversion-event.schema.json');
const EVENTS_PATH = '/v5/ad_accounts/{ad_account_id}/events';
const REF = '#/components/schemas/';

/** The OpenAPI document of the events operation, as YAML with its header. */
export function eventsOpenApi(): string {
  const spec = YAML.parse(readFileSync(SPEC, 'utf8')) as Node;
  const limitsFile = at(`../../../../spec/${(spec['x-data'] as Node).limits as string}`);
  const limits = (
    YAML.parse(readFileSync(limitsFile, 'utf8')) as {
      limits: Record<string, { value: number; overflow?: string }>;
    }
  ).limits;
  const components = spec.components as Record<string, Record<string, Node>>;
  const schemas = components.schemas!;
  const op = ((spec.paths as Node)[EVENTS_PATH] as Node).post as Node;

  const out: Record<string, Node> = {};
  const enumOf = (ref: string) => schemas[ref.slice(REF.length)]?.enum as string[] | undefined;
  const convert = (node: Node): Node => {
    if (node['x-case-insensitive'] === true) {
      const alts = (node.oneOf as Node[] | undefined) ?? [node];
      const values = alts.flatMap((a) =>
        typeof a.$ref === 'string' ? (enumOf(a.$ref) ?? []) : ((a.enum as string[]) ?? []),
      );
      const nullable = alts.some((a) => a.type === 'null');
      return { type: nullable ? ['string', 'null'] : 'string', pattern: caseInsensitivePattern(values) };
    }
    if (typeof node.$ref === 'string') {
      visit(node.$ref.slice(REF.length));
      return { $ref: node.$ref };
    }
    const resolved: Node = { ...node };
    for (const [keyword, key] of Object.entries((node['x-limits'] as Record<string, string>) ?? {}))
      resolved[keyword] = limits[key]!.value;
    const o: Node = {};
    for (const [k, v] of Object.entries(resolved)) {
      if (!KEEP.has(k)) continue;
      if (k === 'pattern' && node['x-severity'] === 'warning') continue;
      // C87: a maxLength whose limit drops the value never fails the event (as json-schema-file.ts).
      const capKey = (node['x-limits'] as Record<string, string> | undefined)?.maxLength;
      if (k === 'maxLength' && capKey !== undefined && limits[capKey]?.overflow === 'drop') continue;
      if (k === 'properties')
        o[k] = Object.fromEntries(Object.entries(v as Record<string, Node>).map(([p, s]) => [p, convert(s)]));
      else if (k === 'items') o[k] = convert(v as Node);
      else if (k === 'oneOf' || k === 'anyOf') o[k] = (v as Node[]).map(convert);
      else o[k] = v;
    }
    if (node.type === 'integer') {
      o.minimum = Math.max(Number(o.minimum ?? -Number.MAX_SAFE_INTEGER), -Number.MAX_SAFE_INTEGER);
      o.maximum = Math.min(Number(o.maximum ?? Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    }
    const unknownKeys = node['x-unknown-keys'];
    if (unknownKeys === 'failed' || unknownKeys === 'request') o.additionalProperties = false;
    return o;
  };
  const visit = (name: string) => {
    if (name in out) return;
    out[name] = {};
    out[name] = convert(schemas[name]!);
  };

  const parameters = (op.parameters as Node[]).map((p) => {
    const param = components.parameters![(p.$ref as string).split('/').pop()!]!;
    return {
      name: param.name,
      in: param.in,
      required: param.required,
      schema: convert(param.schema as Node),
    };
  });
  const body = ((op.requestBody as Node).content as Record<string, Node>)['application/json']!;
  const ok = ((op.responses as Record<string, Node>)['200']!.content as Record<string, Node>)[
    'application/json'
  ]!;
  const example = (ok.examples as Record<string, Node>).processed!.value;
  const doc = {
    openapi: '3.1.0',
    info: {
      title: 'Conversion Events API: the events operation (bench copy)',
      version: (spec.info as Node).version,
    },
    paths: {
      [EVENTS_PATH]: {
        post: {
          operationId: op.operationId,
          parameters,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: convert(body.schema as Node) } },
          },
          responses: {
            '200': {
              description: 'Per-event results in request order.',
              content: {
                'application/json': {
                  schema: convert(ok.schema as Node),
                  examples: { processed: { value: example } },
                },
              },
            },
          },
          security: [{ conversion_token: [] }],
        },
      },
    },
    components: {
      securitySchemes: { conversion_token: { type: 'http', scheme: 'bearer' } },
      schemas: Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
  const header = [
    '# Generated by packages/events-mock-server/bench/prism/extract.ts from spec/openapi.yaml (and',
    '# spec/data/limits.yaml). Do not edit: run `node --import tsx bench/prism/extract.ts` in that package.',
    '#',
    '# The events operation (POST /v5/ad_accounts/{ad_account_id}/events) for the Prism row of `pnpm bench`:',
    '# its parameters, its request body (ConversionEventsRequest, ConversionEvent and the schemas they use),',
    '# the 200 answer with its example (Prism answers it as is) and the conversion token (Bearer) security.',
    "# Schemas keep only their structural keywords, converted as tools/codegen's json-schema-file.ts does: the",
    '# event schemas are those of CONVERSION_EVENT_JSON_SCHEMA, which the ajv reference row compiles.',
    '# The other answers (400, 401...) are left out: an invalid request gets the 422 Prism makes itself.',
  ];
  return `${header.join('\n')}\n${YAML.stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** The generator's JSON Schema of the event, as committed for ajv-reference.mjs. */
export function conversionEventSchema(): string {
  return `${JSON.stringify(CONVERSION_EVENT_JSON_SCHEMA, null, 2)}\n`;
}

/** The event schemas of the OpenAPI document, with refs as JSON Schema definitions: what ajv compiles. */
function eventDefinitions(openapi: string): Node {
  const doc = YAML.parse(openapi) as { components: { schemas: Record<string, unknown> } };
  const names = Object.keys((CONVERSION_EVENT_JSON_SCHEMA.definitions as Node) ?? {});
  const picked = Object.fromEntries(names.map((n) => [n, doc.components.schemas[n]]));
  return JSON.parse(JSON.stringify(picked).replaceAll(REF, '#/definitions/')) as Node;
}

/** What is out of date among the committed documents (empty when all agree with their sources). */
export function staleDocuments(): string[] {
  const stale: string[] = [];
  const read = (f: string) => {
    try {
      return readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  const openapi = eventsOpenApi();
  if (read(OPENAPI_FILE) !== openapi)
    stale.push('bench/prism/events-openapi.yaml differs from spec/openapi.yaml');
  let committed: unknown;
  try {
    committed = JSON.parse(read(JSON_SCHEMA_FILE));
  } catch {
    committed = undefined;
  }
  if (!isDeepStrictEqual(committed, CONVERSION_EVENT_JSON_SCHEMA))
    stale.push('bench/conversion-event.schema.json differs from json-schema.gen.ts');
  if (!isDeepStrictEqual(eventDefinitions(openapi), CONVERSION_EVENT_JSON_SCHEMA.definitions))
    stale.push("the OpenAPI document's event schemas differ from CONVERSION_EVENT_JSON_SCHEMA");
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const stale = staleDocuments();
    for (const s of stale) process.stderr.write(`${s}\n`);
    process.exit(stale.length > 0 ? 1 : 0);
  }
  writeFileSync(OPENAPI_FILE, eventsOpenApi());
  writeFileSync(JSON_SCHEMA_FILE, conversionEventSchema());
  const stale = staleDocuments();
  for (const s of stale) process.stderr.write(`${s}\n`);
}
