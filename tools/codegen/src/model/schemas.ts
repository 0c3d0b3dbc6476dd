import type { EnumIR, FieldIR, RecommendedIR, RuleIR, SchemaIR, Severity, TypeIR } from '../ir/types.js';
import { Reader } from '../load/reader.js';
import { boundsOf } from '../rules/bounds.js';
import { limitRef, type SchemaContext } from '../rules/context.js';
import { kindNamed, kindOf } from '../rules/index.js';

const refName = (ref: string) => ref.replace('#/components/schemas/', '');

function componentKind(ctx: SchemaContext, name: string): 'object' | 'enum' | 'alias' {
  const s = (
    (ctx.doc.components as Record<string, unknown>).schemas as Record<string, Record<string, unknown>>
  )[name];
  if (!s) return 'alias';
  if (Array.isArray(s.enum) || s['x-enum-from']) return 'enum';
  if (s.type === 'object' || s.properties) return 'object';
  return 'alias';
}

/** Follows a $ref to a non-object, non-enum schema (such as HashedValues) and merges siblings over it. */
function inlineAliases(ctx: SchemaContext, node: Reader): Reader {
  const v = node.object();
  const ref = v.$ref;
  if (typeof ref !== 'string') return node;
  const name = refName(ref);
  if (componentKind(ctx, name) !== 'alias') return node;
  const target = new Reader(ctx.file, undefined, `components.schemas.${name}`);
  const schemas = (ctx.doc.components as Record<string, unknown>).schemas as Record<string, unknown>;
  const base = schemas[name];
  if (!base) node.at('$ref').fail('unknown-schema', { name });
  const { $ref: _ignored, ...siblings } = v;
  return new Reader(target.file, { ...(base as object), ...siblings }, node.path);
}

function parseType(ctx: SchemaContext, node: Reader): { type: TypeIR; nullable: boolean } {
  const v = node.object();
  if (typeof v.$ref === 'string') {
    const name = refName(v.$ref);
    const kind = componentKind(ctx, name);
    if (kind === 'alias') return parseType(ctx, inlineAliases(ctx, node));
    return { type: { kind: 'ref', name, target: kind }, nullable: false };
  }
  if (Array.isArray(v.oneOf)) {
    const alts = node.at('oneOf').array();
    const nonNull = alts.filter((a) => a.object().type !== 'null');
    if (nonNull.length !== 1 || alts.length !== 2) node.at('oneOf').fail('one-of-unsupported');
    return { type: parseType(ctx, nonNull[0]!).type, nullable: true };
  }
  let t = v.type;
  let nullable = false;
  if (Array.isArray(t)) {
    nullable = t.includes('null');
    const rest = t.filter((x) => x !== 'null');
    if (rest.length !== 1) node.at('type').fail('type-union');
    t = rest[0];
  }
  if (t === 'array')
    return { type: { kind: 'array', items: parseType(ctx, node.at('items')).type }, nullable };
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean')
    return { type: { kind: 'primitive', name: t }, nullable };
  return node.fail('type-unsupported', { type: JSON.stringify(t) });
}

/** Where an x-rules entry stands, and the places of the kinds that may stand there. */
const PLACES = {
  field: { here: 'a field', kinds: ['value', 'field'] },
  item: { here: 'array items', kinds: ['value'] },
  object: { here: 'an object', kinds: ['object'] },
} as const;

/** Where a kind of each place may stand, in words. */
const PLACE_WORDS = { value: 'a field or its array items', field: 'a field', object: 'an object' } as const;

/** One x-rules entry -> a typed rule, read by its kind's module (src/rules/<kind>.ts). */
function customRule(ctx: SchemaContext, r: Reader, where: keyof typeof PLACES): RuleIR {
  const kind = r.at('kind').string();
  const k = kindNamed(kind);
  const parse = k?.parse;
  if (!k || !parse) return r.at('kind').fail('unknown-rule-kind', { kind });
  const place = PLACES[where];
  if (!(place.kinds as readonly string[]).includes(k.place))
    r.at('kind').fail('rule-kind-misplaced', { kind, place: PLACE_WORDS[k.place], here: place.here });
  for (const p of Object.keys(r.object()))
    if (p !== 'kind' && !parse.params.includes(p)) r.at(p).fail('unknown-rule-parameter', { kind });
  return parse.read(r, ctx);
}

function describeType(t: TypeIR, nullable: boolean, ctx: SchemaContext): string {
  const base = (() => {
    switch (t.kind) {
      case 'primitive':
        return { string: 'a string', integer: 'an integer', number: 'a number', boolean: 'true or false' }[
          t.name
        ];
      case 'array':
        return t.items.kind === 'primitive' ? `an array of ${t.items.name}s` : 'an array of objects';
      case 'ref':
        if (t.target === 'enum') {
          const e = (
            (ctx.doc.components as Record<string, unknown>).schemas as Record<string, { enum?: string[] }>
          )[t.name];
          return `one of ${(e?.enum ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
        }
        return 'an object';
    }
  })();
  return nullable ? `${base} or null` : base;
}

function readRecommended(ctx: SchemaContext, r: Reader): RecommendedIR | undefined {
  if (!r.present) return undefined;
  const as = r.at('actionSources');
  const en = r.at('eventNames');
  let actionSources: RecommendedIR['actionSources'] = 'all';
  if (as.present && as.value !== 'all')
    actionSources = as
      .array()
      .map((a) => a.oneOf(ctx.actionSources))
      .sort();
  let eventNames: string[] | null = null;
  if (en.present) {
    const g = en.string();
    const group = ctx.groups[g];
    if (!group) return en.fail('unknown-event-group', { group: g });
    eventNames = group;
  }
  const w = r.at('weight');
  return { actionSources, eventNames, weight: w.present ? w.integer() : 1 };
}

function buildField(ctx: SchemaContext, name: string, raw: Reader, required: boolean): FieldIR {
  const node = inlineAliases(ctx, raw);
  const { type, nullable } = parseType(ctx, node);
  const rules: RuleIR[] = [];
  if (required) rules.push({ kind: 'required', severity: 'failed' });
  rules.push({ kind: 'type', severity: 'failed', expected: type, nullable });
  if (type.kind === 'ref' && type.target === 'enum') {
    const schemas = (ctx.doc.components as Record<string, unknown>).schemas as Record<
      string,
      { enum: string[] }
    >;
    rules.push({
      kind: 'enum',
      severity: 'failed',
      enum: type.name,
      values: schemas[type.name]!.enum,
      caseInsensitive: node.at('x-case-insensitive').present
        ? node.at('x-case-insensitive').boolean()
        : false,
    });
  }
  const b = boundsOf(ctx, node);
  if (b) rules.push(b);
  if (node.at('pattern').present) {
    const severity = node.at('x-severity').present
      ? node.at('x-severity').oneOf<Severity>(['failed', 'warning'])
      : 'failed';
    rules.push({ kind: 'pattern', severity, pattern: node.at('pattern').regex() });
  }
  for (const r of node.at('x-rules').optArray()) rules.push(customRule(ctx, r, 'field'));

  const itemRules: RuleIR[] = [];
  if (type.kind === 'array') {
    const items = inlineAliases(ctx, node.at('items'));
    itemRules.push({ kind: 'type', severity: 'failed', expected: type.items, nullable: false });
    const ib = boundsOf(ctx, items);
    if (ib) itemRules.push(ib);
    for (const r of items.at('x-rules').optArray()) itemRules.push(customRule(ctx, r, 'item'));
  }
  const field: FieldIR = {
    name,
    description: node.at('description').optString() ?? '',
    type,
    required,
    nullable,
    rules,
    itemRules,
    expected: node.at('x-expected').optString() ?? describeType(type, nullable, ctx),
  };
  if (node.at('example').present) field.example = node.at('example').value;
  const rec = readRecommended(ctx, node.at('x-recommended'));
  if (rec) field.recommended = rec;
  const norm = node.at('x-normalize').optString();
  if (norm) field.normalize = norm;
  const source = node.at('x-source').optString();
  if (source) field.source = source;
  return field;
}

export function buildSchemas(ctx: SchemaContext): { schemas: SchemaIR[]; enums: EnumIR[] } {
  const root = new Reader(ctx.file, ctx.doc).at('components').at('schemas');
  const schemas: SchemaIR[] = [];
  const enums: EnumIR[] = [];
  for (const [name, s] of root.entries().sort(([a], [b]) => (a < b ? -1 : 1))) {
    const kind = componentKind(ctx, name);
    if (kind === 'enum') {
      enums.push({
        name,
        description: s.at('description').optString() ?? '',
        values: s.at('enum').strings(),
      });
      continue;
    }
    if (kind !== 'object') continue;
    const required = new Set(s.at('required').present ? s.at('required').strings() : []);
    const props = s.at('properties').entries();
    for (const req of required)
      if (!props.some(([k]) => k === req)) s.at('required').fail('required-not-property', { name: req });
    const fields = props.map(([fname, f]) => buildField(ctx, fname, f, required.has(fname)));
    const rules: RuleIR[] = s
      .at('x-rules')
      .optArray()
      .map((r) => customRule(ctx, r, 'object'));
    const unknownKeys = s.at('x-unknown-keys').present
      ? s.at('x-unknown-keys').oneOf(['failed', 'warning', 'request', 'allow'] as const)
      : 'allow';
    if (unknownKeys !== 'allow') rules.unshift({ kind: 'unknown-keys', severity: unknownKeys });
    const dedup = s.at('x-dedup');
    if (dedup.present) {
      const key = dedup.at('key').strings();
      // The key names fields of the batch items: the object schema an array field of this schema holds.
      const all = (ctx.doc.components as Record<string, unknown>).schemas as Record<
        string,
        { properties?: object }
      >;
      const itemProps = fields.flatMap((f) =>
        f.type.kind === 'array' && f.type.items.kind === 'ref'
          ? Object.keys(all[f.type.items.name]?.properties ?? {})
          : [],
      );
      for (const [i, k] of key.entries())
        if (!itemProps.includes(k))
          dedup.at('key').at(i).fail('dedup-key-not-item-property', { key: k, schema: name });
      rules.push({
        kind: 'dedup',
        severity: 'warning',
        key,
        window: limitRef(ctx.limits, dedup.at('windowLimit')),
      });
    }
    const fieldNames = new Set(fields.map((f) => f.name));
    for (const r of rules) {
      const k = kindOf(r);
      for (const n of k.place === 'object' ? (k.names?.(r) ?? []) : [])
        if (!fieldNames.has(n))
          s.at('x-rules').fail('rule-field-unknown', { kind: r.kind, name: n, schema: name });
    }
    const schema: SchemaIR = {
      name,
      description: s.at('description').optString() ?? '',
      fields,
      unknownKeys,
      rules,
    };
    const source = s.at('x-source').optString();
    if (source) schema.source = source;
    schemas.push(schema);
  }
  return { schemas, enums };
}
