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

type Node = Record<string, unknown>;

/** A limit of spec/data/limits.yaml as the conversion needs it: its value, and whether overflow drops (C87). */
export interface StructuralLimit {
  value: number;
  overflow?: string;
}

export interface StructuralOptions {
  /** The schemas `$ref`s name, by name (an OpenAPI document's `components.schemas`). */
  schemas: Readonly<Record<string, Node>>;
  limits: Readonly<Record<string, StructuralLimit>>;
  /** Where a converted `$ref` points: `#/definitions/` for ajv, `#/components/schemas/` for an OpenAPI copy. */
  refPrefix: string;
  /** The `x-unknown-keys` values that make a schema closed (`additionalProperties: false`). */
  closed: ReadonlySet<string>;
}

/**
 * The structural JSON Schema of the schemas a node uses: `x-limits` applied, `x-unknown-keys` closing objects,
 * warning-severity patterns and maxLengths whose limit drops (C87) removed (they drop, never fail),
 * `x-case-insensitive` enums as case-insensitive patterns, integers bounded to ±2^53 (C38, as the generated
 * validators bound them), `x-rules` left out. `convert` turns one node; `definitions` collects every schema a
 * converted `$ref` reached, by name.
 */
export function structuralSchemas(o: StructuralOptions): {
  convert: (node: Node) => Node;
  definitions: Record<string, Node>;
  sortedDefinitions: () => Record<string, Node>;
} {
  const REF = '#/components/schemas/';
  const definitions: Record<string, Node> = {};
  const enumOf = (ref: string) => o.schemas[ref.slice(REF.length)]?.enum as string[] | undefined;
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
      const name = node.$ref.slice(REF.length);
      visit(name);
      return { $ref: `${o.refPrefix}${name}` };
    }
    const xLimits = (node['x-limits'] as Record<string, string> | undefined) ?? {};
    const resolved: Node = { ...node };
    for (const [keyword, key] of Object.entries(xLimits)) {
      const limit = o.limits[key];
      if (limit) resolved[keyword] = limit.value;
    }
    const out: Node = {};
    for (const [k, v] of Object.entries(resolved)) {
      if (!KEEP.has(k)) continue;
      if (k === 'pattern' && node['x-severity'] === 'warning') continue;
      if (
        k === 'maxLength' &&
        xLimits.maxLength !== undefined &&
        o.limits[xLimits.maxLength]?.overflow === 'drop'
      )
        continue;
      if (k === 'properties')
        out[k] = Object.fromEntries(
          Object.entries(v as Record<string, Node>).map(([p, s]) => [p, convert(s)]),
        );
      else if (k === 'items') out[k] = convert(v as Node);
      else if (k === 'oneOf' || k === 'anyOf') out[k] = (v as Node[]).map(convert);
      else out[k] = v;
    }
    if (node.type === 'integer') {
      out.minimum = Math.max(Number(out.minimum ?? -Number.MAX_SAFE_INTEGER), -Number.MAX_SAFE_INTEGER);
      out.maximum = Math.min(Number(out.maximum ?? Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
    }
    if (o.closed.has(node['x-unknown-keys'] as string)) out.additionalProperties = false;
    return out;
  };
  const visit = (name: string) => {
    if (name in definitions) return;
    definitions[name] = {};
    definitions[name] = convert(o.schemas[name]!);
  };
  const sortedDefinitions = () =>
    Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : 1)));
  return { convert, definitions, sortedDefinitions };
}
