import type { EmittedFile } from '../../emit/emitter.js';
import { literal } from '../../emit/literal.js';
import { tsFile } from '../../emit/ts-file.js';
import type { ValidatorModel } from './model.js';
import { caseInsensitivePattern, KEEP } from './structural.js';

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
  const definitions: Record<string, unknown> = {};
  // C87: a maxLength whose limit drops the value (a warning) never fails the event, so it is not structural.
  const drops = new Set(m.ir.limits.filter((l) => l.overflow === 'drop').map((l) => l.key));
  const enumOf = (ref: string) =>
    components[ref.replace('#/components/schemas/', '')]?.enum as string[] | undefined;
  const convert = (node: Node): Node => {
    if (node['x-case-insensitive'] === true) {
      const alts = (node.oneOf as Node[] | undefined) ?? [node];
      const values = alts.flatMap((a) =>
        typeof a.$ref === 'string' ? (enumOf(a.$ref) ?? []) : ((a.enum as string[]) ?? []),
      );
      const nullable = alts.some((a) => a.type === 'null');
      return { type: nullable ? ['string', 'null'] : 'string', pattern: caseInsensitivePattern(values) };
    }
    const out: Node = {};
    if (typeof node.$ref === 'string') {
      const name = node.$ref.replace('#/components/schemas/', '');
      out.$ref = `#/definitions/${name}`;
      visit(name);
      return out;
    }
    for (const [k, v] of Object.entries(node)) {
      if (!KEEP.has(k)) continue;
      if (k === 'pattern' && node['x-severity'] === 'warning') continue;
      if (k === 'maxLength' && drops.has((node['x-limits'] as Node | undefined)?.maxLength as string))
        continue;
      if (k === 'properties')
        out[k] = Object.fromEntries(
          Object.entries(v as Record<string, Node>).map(([p, s]) => [p, convert(s)]),
        );
      else if (k === 'items') out[k] = convert(v as Node);
      else if (k === 'oneOf' || k === 'anyOf') out[k] = (v as Node[]).map(convert);
      else out[k] = v;
    }
    // C38: integers beyond 2^53 fail, as the generated validators fail them.
    if (node.type === 'integer') {
      out.minimum = Math.max(Number(out.minimum ?? -Number.MAX_SAFE_INTEGER), -Number.MAX_SAFE_INTEGER);
      out.maximum = Math.min(Number(out.maximum ?? Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    }
    if (node['x-unknown-keys'] === 'failed') out.additionalProperties = false;
    return out;
  };
  const visit = (name: string) => {
    if (name in definitions) return;
    definitions[name] = {};
    definitions[name] = convert(components[name]!);
  };
  visit(m.event.name);
  const sorted = Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : 1)));
  const schema = { $ref: `#/definitions/${m.event.name}`, definitions: sorted };
  const path = `${dir}/json-schema.gen.ts`;
  return {
    path,
    content: tsFile(path, [
      `/**\n * Structural JSON Schema of ${m.event.name} (types, required, enums, bounds, unknown keys), for ajv in tests\n * and the benchmark. Not used at run time: the generated validators check every rule, this only the shape.\n */\nexport const ${m.event.name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}_JSON_SCHEMA: Record<string, unknown> = ${literal(schema)};`,
    ]),
  };
}
