import type { SchemaIR } from '../ir/types.js';

/** `ConversionEvent` -> `CONVERSION_EVENT`, `event_source_url` -> `EVENT_SOURCE_URL`. */
export function constName(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/** Bit of a field in the masks of its object (met `pm`, dropped `dm`): one bit per field, in spec order. */
export function fieldBit(schema: SchemaIR, name: string): number {
  const k = schema.fields.findIndex((f) => f.name === name);
  if (k < 0) throw new Error(`events-validators: ${name} is not a field of ${schema.name}`);
  if (k > 30)
    throw new Error(`events-validators: ${schema.name} has more than 31 fields (validatorModel checks it)`);
  return 2 ** k;
}

/** Name of the generated function building the accepted copy of an object. */
export function pickName(schema: string): string {
  return `pick${schema}`;
}

/** Name of the generated function checking the fields of an object schema. */
export function checkName(schema: string): string {
  return `check${schema}`;
}
