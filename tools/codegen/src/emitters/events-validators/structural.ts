// The structural part of a schema, as a JSON Schema validator can check it: shared by the json-schema.gen.ts
// emitter and the bench's Prism document (packages/events-mock-server/bench/prism/extract.ts). No imports, so
// a package outside the generator may load it as source.

/** Keywords kept: the structural part of a schema (types, required, enums, bounds, failing patterns). */
export const KEEP: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'items',
  'enum',
  'oneOf',
  'anyOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'pattern',
]);

/** An enum matched whatever the case of its letters, as a pattern. */
export function caseInsensitivePattern(values: string[]): string {
  const alt = values.map((v) =>
    [...v]
      .map((ch) => {
        const lo = ch.toLowerCase();
        const up = ch.toUpperCase();
        return lo !== up ? `[${lo}${up}]` : ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
      })
      .join(''),
  );
  return `^(?:${alt.join('|')})$`;
}
