import type { FieldIR, IR, RuleIR, SchemaIR, TypeIR } from '../../ir/types.js';
import { block, describeItem, quote } from '../../kit/code.js';
import { checkName, fieldBit } from '../../kit/names.js';
import type { FileScope } from '../../kit/scope.js';
import { fieldSite, itemSite, type Site } from '../../kit/site.js';
import { mayChange, ruleCode } from './rules.js';

function enumValues(ir: IR, t: TypeIR): string[] | undefined {
  return t.kind === 'ref' && t.target === 'enum'
    ? ir.enums.find((e) => e.name === t.name)?.values
    : undefined;
}

/**
 * Code checking the JSON type of the value of a site (rule kind `type`). On a mismatch the runtime reports
 * `invalid_type` and may hand back the value converted (42 -> "42"): checks then go on with it, so one
 * answer names every problem. A value that must be one of a set of names (an enum, an event name) is not
 * converted: `5` is no name, so one message says what to send instead of a conversion and a second
 * problem with it. Objects are checked by their schema's generated function.
 */
function typeCode(site: Site, scope: FileScope, named: boolean): string[] {
  const { v, loc, stop } = site;
  const t = site.type;
  const mismatch = scope.lib('json-type', 'mismatch');
  const call = (code: string) =>
    `${mismatch}(o, ${loc}, ${v}, ${quote(site.expected)}, '${code}', ${site.sensitive})`;
  const convertible = (test: string, code: string, recheck: string) =>
    named
      ? block(`if (${test}) `, [`${call('o')};`, stop])
      : block(`if (${test}) `, [`${v} = ${call(code)};`, `if (${recheck}) ${stop}`]);
  switch (t.kind) {
    case 'array':
      return convertible(`!Array.isArray(${v})`, 'a', `!Array.isArray(${v})`);
    case 'ref':
      if (t.target === 'enum')
        return convertible(`typeof ${v} !== 'string'`, 's', `typeof ${v} !== 'string'`);
      return block(`if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) `, [
        `${call('o')};`,
        stop,
      ]);
    case 'primitive':
      switch (t.name) {
        case 'string':
          return convertible(`typeof ${v} !== 'string'`, 's', `typeof ${v} !== 'string'`);
        case 'integer':
          // C38: an integer no JSON reader holds exactly (beyond 2^53) is no integer here.
          return convertible(
            `typeof ${v} !== 'number' || !Number.isSafeInteger(${v})`,
            'i',
            `typeof ${v} !== 'number'`,
          );
        case 'number':
          return convertible(`typeof ${v} !== 'number'`, 'n', `typeof ${v} !== 'number'`);
        case 'boolean':
          return convertible(`typeof ${v} !== 'boolean'`, 'b', `typeof ${v} !== 'boolean'`);
      }
  }
}

/** Code checking a nested object with its schema's function and keeping what it accepted. */
function objectCode(site: Site, pathExpr: string, index: string): string[] {
  const t = site.type;
  if (t.kind !== 'ref' || t.target !== 'object') return [];
  return block('', [
    `const r = ${checkName(t.name)}(${site.v} as Record<string, unknown>, ${pathExpr}, ${index}, c, o);`,
    ...block(`if (r !== ${site.v}) `, site.set('r')),
  ]);
}

/**
 * A value that may hold personal data is never echoed in a message (C21): a hashed field (rule `sha256-hex`),
 * and any object or array that holds one (user_data given as a string or an array would quote the raw e-mail).
 */
function isSensitive(ir: IR, f: FieldIR, seen: Set<string> = new Set()): boolean {
  return (
    [...f.rules, ...f.itemRules].some((r) => r.kind === 'sha256-hex') || holdsSensitive(ir, f.type, seen)
  );
}

export function holdsSensitive(ir: IR, t: TypeIR, seen: Set<string> = new Set()): boolean {
  if (t.kind === 'array') return holdsSensitive(ir, t.items, seen);
  if (t.kind !== 'ref' || t.target !== 'object' || seen.has(t.name)) return false;
  seen.add(t.name);
  const schema = ir.schemas.find((s) => s.name === t.name);
  return schema?.fields.some((f) => isSensitive(ir, f, seen)) ?? false;
}

/** A value that must be one of a set of names: an enum or an event name. */
function isNamed(t: TypeIR, rules: readonly RuleIR[]): boolean {
  return (t.kind === 'ref' && t.target === 'enum') || rules.some((r) => r.kind === 'event-name');
}

/** The items of an array field: type, item rules, and copy-on-write of the accepted array. */
function itemsCode(ir: IR, schema: SchemaIR, f: FieldIR, bit: number, scope: FileScope): string[] {
  if (f.type.kind !== 'array') return [];
  const itemType = f.type.items;
  const site = itemSite(
    schema.name,
    f.name,
    itemType,
    describeItem(itemType, enumValues(ir, itemType)),
    isSensitive(ir, f),
  );
  const isObject = itemType.kind === 'ref' && itemType.target === 'object';
  const changes = isObject || f.itemRules.some(mayChange);
  const body = [
    'let y: unknown = x[j];',
    ...typeCode(site, scope, isNamed(itemType, f.itemRules)),
    ...f.itemRules.flatMap((r) => ruleCode(ir, r, site, scope)),
    ...objectCode(site, 'ip', 'j'),
  ];
  if (!changes) return [...block('for (let j = 0; j < x.length; j++) ', body)];
  const key = quote(f.name);
  return block('', [
    'let d: unknown[] | undefined;',
    ...(isObject ? [`const ip = ${scope.lib('problems', 'pathOf')}(p, i, ${key}, -1);`] : []),
    ...block('for (let j = 0; j < x.length; j++) ', [
      ...body,
      'if (d !== undefined) d.push(y);',
      ...block('else if (y !== x[j]) ', ['d = x.slice(0, j);', 'd.push(y);']),
    ]),
    ...block('if (d !== undefined) ', [`if (d.length > 0) (a ??= {})[${key}] = d;`, `else dm |= ${bit};`]),
  ]);
}

/** One `case` of the generated key switch: the whole check of one field. */
export function fieldCase(ir: IR, schema: SchemaIR, f: FieldIR, scope: FileScope): string[] {
  const bit = fieldBit(schema, f.name);
  const site = fieldSite(schema.name, f.name, bit, f.type, f.expected, isSensitive(ir, f));
  const body = [
    `pm |= ${bit};`,
    ...(f.nullable ? ['if (x === null) break;'] : []),
    ...typeCode(site, scope, isNamed(f.type, f.rules)),
    ...f.rules.flatMap((r) => ruleCode(ir, r, site, scope)),
    ...objectCode(site, `${scope.lib('problems', 'pathOf')}(p, i, ${quote(f.name)}, -1)`, '-1'),
    ...itemsCode(ir, schema, f, bit, scope),
    'break;',
  ];
  return [`case ${quote(f.name)}: {`, ...body.map((l) => `  ${l}`), '}'];
}
