import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import { literal } from '../../kit/literal.js';
import type { ValidatorModel } from './model.js';
import { structuralSchemas } from './structural.js';

type Node = Record<string, unknown>;

/**
 * json-schema.gen.ts: the structural JSON Schema (draft-07 / ajv) of the event, from the resolved OpenAPI
 * document (x-limits applied). Only what a JSON Schema validator can check is kept: `x-unknown-keys: failed`
 * becomes `additionalProperties: false`; a warning-severity `pattern` and a maxLength whose limit drops (C87) are removed (they drop, never fail);
 * an `x-case-insensitive` enum becomes a case-insensitive pattern; `x-rules` (semantic) are left out.
 * Tests and the benchmark compile it with ajv as an oracle for the generated validators; nothing at run
 * time uses it.
 */
export function jsonSchemaFile(dir: string, m: ValidatorModel): EmittedFile {
  const components = (m.ir.openapi.components as Node).schemas as Record<string, Node>;
  const { convert, sortedDefinitions } = structuralSchemas({
    schemas: components,
    limits: Object.fromEntries(m.ir.limits.map((l) => [l.key, l])),
    refPrefix: '#/definitions/',
    closed: new Set(['failed']),
  });
  const root = convert({ $ref: `#/components/schemas/${m.event.name}` });
  const schema = { ...root, definitions: sortedDefinitions() };
  const path = `${dir}/json-schema.gen.ts`;
  return {
    path,
    content: tsFile(path, [
      `/**\n * Structural JSON Schema of ${m.event.name} (types, required, enums, bounds, unknown keys), for ajv in tests\n * and the benchmark. Not used at run time: the generated validators check every rule, this only the shape.\n */\nexport const ${m.event.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_JSON_SCHEMA: Record<string, unknown> = ${literal(schema)};`,
    ]),
  };
}
