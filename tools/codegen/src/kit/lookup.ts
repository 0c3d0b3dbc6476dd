import type { FieldIR, IR, SchemaIR, TypeIR } from '../ir/types.js';

/** The object schema a type names, directly or as array items. */
export function refName(t: TypeIR): string | undefined {
  if (t.kind === 'ref' && t.target === 'object') return t.name;
  if (t.kind === 'array') return refName(t.items);
  return undefined;
}

export function schemaByName(ir: IR, name: string): SchemaIR {
  const s = ir.schemas.find((x) => x.name === name);
  if (!s) throw new Error(`events-validators: no object schema ${name}`);
  return s;
}

/** The field of an object holding its event name (the one with the event-name rule), if it has one. */
export function eventNameField(schema: SchemaIR): FieldIR | undefined {
  return schema.fields.find((f) => f.rules.some((r) => r.kind === 'event-name'));
}
