import { type FunctionDeclarationStructure, StructureKind } from 'ts-morph';
import { doc, literal } from '../../emit/literal.js';
import type { FieldIR, IR, RuleIR, SchemaIR } from '../../ir/types.js';
import { block, quote } from './code.js';
import { checkName, fieldBit, fieldCase, pickName } from './fields.js';
import { refName, schemaByName } from './model.js';
import { constName } from './rules.js';
import type { FileScope } from './scope.js';

const PARAMS = [
  { name: 's', type: 'Record<string, unknown>' },
  { name: 'p', type: 'string' },
  { name: 'i', type: 'number' },
  { name: 'c', type: 'Ctx' },
  { name: 'o', type: 'EventProblems' },
];

function unknownKeysDefault(schema: SchemaIR, scope: FileScope): string[] {
  const keys = () =>
    scope.constant(
      `KEYS_${constName(schema.name)}`,
      literal(schema.fields.map((f) => f.name)),
      'readonly string[]',
    );
  const unknownKey = () => scope.lib('unknown-keys', 'unknownKey');
  switch (schema.unknownKeys) {
    case 'allow':
      throw new Error(
        `events-validators: ${schema.name} allows unknown keys; an event schema must fail on them or drop them (x-unknown-keys)`,
      );
    case 'failed':
      return ['default:', `  ${unknownKey()}(o, 'unknown_field', p, i, k, ${keys()});`];
    case 'warning':
      return [
        'default:',
        `  ${unknownKey()}(o, 'unknown_field_dropped', p, i, k, ${keys()});`,
        '  du = true;',
      ];
    case 'request':
      throw new Error(
        `events-validators: ${schema.name} fails the whole request on unknown keys; only the batch body may`,
      );
  }
}

/** The field that a recommended-fields condition reads: the enum field holding every action source named. */
export function actionSourceField(event: SchemaIR, needed: Set<string>): FieldIR {
  const found = event.fields.filter((f) =>
    f.rules.some((r) => r.kind === 'enum' && [...needed].every((v) => r.values.includes(v))),
  );
  if (found.length !== 1)
    throw new Error(
      `events-validators: ${event.name} needs one enum field holding ${[...needed].join(', ')} for x-recommended`,
    );
  return found[0]!;
}

function holdsRecommended(ir: IR, schema: SchemaIR): boolean {
  return schema.fields.some(
    (f) =>
      f.recommended !== undefined ||
      (f.type.kind === 'ref' &&
        f.type.target === 'object' &&
        holdsRecommended(ir, schemaByName(ir, f.type.name))),
  );
}

export interface Recommended {
  path: string;
  access: string;
  field: FieldIR;
}

/** Fields with x-recommended in the schema and in the objects it holds (not through arrays). */
export function recommendedFields(
  ir: IR,
  schema: SchemaIR,
  prefix: string,
  access: string,
  lines: string[],
  depth: number,
): Recommended[] {
  const out: Recommended[] = [];
  for (const f of schema.fields) {
    if (f.recommended)
      out.push({ path: `${prefix}${f.name}`, access: `${access}[${quote(f.name)}]`, field: f });
    if (
      f.type.kind === 'ref' &&
      f.type.target === 'object' &&
      holdsRecommended(ir, schemaByName(ir, f.type.name))
    ) {
      const v = `n${depth}_${lines.length}`;
      lines.push(`const ${v}r = ${access}[${quote(f.name)}];`);
      lines.push(
        `const ${v} = typeof ${v}r === 'object' && ${v}r !== null ? (${v}r as Record<string, unknown>) : undefined;`,
      );
      out.push(
        ...recommendedFields(
          ir,
          schemaByName(ir, f.type.name),
          `${prefix}${f.name}.`,
          `${v}?.`,
          lines,
          depth + 1,
        ),
      );
    } else if (f.type.kind === 'array' && refName(f.type)) {
      const nested = schemaByName(ir, refName(f.type)!);
      if (nested.fields.some((x) => x.recommended))
        throw new Error(
          `events-validators: x-recommended inside array items (${nested.name}) is not supported`,
        );
    }
  }
  return out;
}

/** Rule kind `recommended-fields` (C4): one warning listing what the spec recommends and the event lacks. */
function recommendedCode(ir: IR, schema: SchemaIR, scope: FileScope): string[] {
  const head: string[] = [];
  const fields = recommendedFields(ir, schema, '', 's', head, 0);
  if (fields.length === 0) return [];
  const sources = new Set<string>();
  for (const r of fields)
    if (r.field.recommended!.actionSources !== 'all')
      for (const a of r.field.recommended!.actionSources) sources.add(a);
  const lines = [...head];
  if (sources.size) lines.unshift(`const as = s[${quote(actionSourceField(schema, sources).name)}];`);
  const groups = new Map<string, string>();
  const nameField = schema.fields.find((f) => f.rules.some((r) => r.kind === 'event-name'));
  for (const r of fields) {
    const names = r.field.recommended!.eventNames;
    if (names === null || groups.has(names.join())) continue;
    if (!nameField)
      throw new Error(
        `events-validators: x-recommended eventNames needs an event-name field in ${schema.name}`,
      );
    if (groups.size === 0) lines.push(`const en = s[${quote(nameField.name)}];`);
    const g = `g${groups.size}`;
    groups.set(names.join(), g);
    lines.push(`const ${g} = ${names.map((n) => `en === ${quote(n)}`).join(' || ')};`);
  }
  if (fields.length > 31)
    throw new Error(`events-validators: more than 31 recommended fields in ${schema.name}`);
  const present = scope.lib('present', 'present');
  const paths = scope.constant(
    `RECOMMENDED_${constName(schema.name)}`,
    literal(fields.map((r) => r.path)),
    'readonly string[]',
  );
  const weights = scope.constant(
    `RECOMMENDED_WEIGHTS_${constName(schema.name)}`,
    literal(fields.map((r) => r.field.recommended!.weight)),
    'readonly number[]',
  );
  // C88: `ap` marks the recommended fields that apply to this event, `m` those of them it lacks.
  lines.push('let ap = 0;', 'let m = 0;');
  fields.forEach((r, k) => {
    const rec = r.field.recommended!;
    const conds: string[] = [];
    if (rec.actionSources !== 'all')
      conds.push(`(${rec.actionSources.map((a) => `as === ${quote(a)}`).join(' || ')})`);
    if (rec.eventNames !== null) conds.push(groups.get(rec.eventNames.join()) ?? 'false');
    const bit = 2 ** k;
    const missing = `if (!${present}(${r.access})) m |= ${bit};`;
    lines.push(
      conds.length ? `if (${conds.join(' && ')}) { ap |= ${bit}; ${missing} }` : `ap |= ${bit}; ${missing}`,
    );
  });
  lines.push(
    `if (m !== 0) ${scope.lib('recommended', 'recommendedMissing')}(o, m, ap, ${paths}, ${weights});`,
  );
  return block('', lines);
}

/** The object schema of property `name` of `schema`. */
function innerSchema(schema: SchemaIR, name: string): string {
  const f = schema.fields.find((x) => x.name === name);
  if (f?.type.kind !== 'ref' || f.type.target !== 'object')
    throw new Error(`events-validators: ${schema.name}.${name} is not an object property`);
  return f.type.name;
}

function objectRuleCode(ir: IR, schema: SchemaIR, r: RuleIR, scope: FileScope): string[] {
  switch (r.kind) {
    case 'unknown-keys':
    case 'dedup':
      return [];
    case 'require-any-of': {
      const alts = scope.constant(
        `ANY_OF_${constName(schema.name)}`,
        literal(r.alternatives),
        'readonly (readonly string[])[]',
      );
      // The test inline (named loads, no loop over the lists); the runtime only builds the message.
      const present = scope.lib('present', 'present');
      const test = r.alternatives
        .map((alt) => {
          const all = alt.map((f) => `${present}(t[${quote(f)}])`).join(' && ');
          return alt.length > 1 && r.alternatives.length > 1 ? `(${all})` : all;
        })
        .join(' || ');
      return [`if (!(${test})) ${scope.lib('require-any-of', 'requireAnyOf')}(o, p, i, t, ${alts});`];
    }
    case 'default-from-context':
      return block(`if (s[${quote(r.when)}] != null && s[${quote(r.field)}] == null) `, [
        `${scope.lib('default-from-context', 'defaultFromContext')}(o, p, i, ${quote(r.field)}, ${quote(r.when)}, c.${r.context});`,
        ...block(`if (c.${r.context} !== undefined) `, [
          'if (t === s) t = { ...s };',
          `t[${quote(r.field)}] = c.${r.context};`,
        ]),
      ]);
    case 'ids-in-items':
      return block('', [
        `const ids = t[${quote(r.ids)}];`,
        `const items = t[${quote(r.items)}];`,
        ...block('if (Array.isArray(ids) && Array.isArray(items)) ', [
          `const kept = ${scope.lib('ids-in-items', 'idsInItems')}(o, p, i, ${quote(r.ids)}, ${quote(r.items)}, ${quote(r.key)}, ids, items);`,
          ...block('if (kept !== ids) ', [
            `if (kept.length === 0) t = ${pickName(schema.name)}(t, undefined, ~${fieldBit(schema, r.ids)});`,
            ...block('else ', ['if (t === s) t = { ...s };', `t[${quote(r.ids)}] = kept;`]),
          ]),
        ]),
      ]);
    case 'agrees-with': {
      const inner = ir.schemas.find((x) => x.name === innerSchema(schema, r.in));
      if (!inner?.fields.some((f) => f.name === r.field))
        throw new Error(`events-validators: ${schema.name}.${r.in} has no field ${r.field}`);
      const except = scope.constant(
        `EXCEPT_${constName(schema.name)}_${constName(r.with)}`,
        literal(r.except),
        'readonly string[]',
      );
      return block('', [
        `const inner = t[${quote(r.in)}];`,
        ...block(
          `if (${scope.lib('agrees-with', 'disagrees')}(inner, ${quote(r.field)}, t[${quote(r.with)}], ${except})) `,
          [
            `${scope.lib('agrees-with', 'disagreeingDropped')}(o, p, i, ${quote(r.in)}, ${quote(r.field)}, ${quote(r.with)}, t[${quote(r.with)}]);`,
            'if (t === s) t = { ...s };',
            `t[${quote(r.in)}] = ${pickName(inner.name)}(inner as Record<string, unknown>, undefined, ~${fieldBit(inner, r.field)});`,
          ],
        ),
      ]);
    }
    case 'positive-for-events': {
      const nameField = schema.fields.find((f) => f.rules.some((x) => x.kind === 'event-name'));
      if (!nameField)
        throw new Error(`events-validators: positive-for-events needs an event-name field in ${schema.name}`);
      const inName = quote(r.in);
      const en = `t[${quote(nameField.name)}]`;
      return block(`if (${r.eventNames.map((n) => `${en} === ${quote(n)}`).join(' || ')}) `, [
        `${scope.lib('positive-for-events', 'zeroOnEvent')}(o, p, i, ${inName}, ${quote(r.field)}, t[${inName}], ${en} as string);`,
      ]);
    }
    case 'recommended-fields':
      return recommendedCode(ir, schema, scope);
    default:
      throw new Error(`events-validators: rule kind ${r.kind} is not an object rule (${schema.name})`);
  }
}

/**
 * The accepted copy of an object: its known fields in spec order, replaced values (`a`) over the sent ones,
 * only the fields of the keep mask `km` (the fields the key pass met, less those a warning dropped), and
 * without unknown keys (an event schema either fails on them or drops them). Named loads and stores: no
 * `delete`, no dictionary mode. The mask also spares the loads of absent fields: sent events carry about
 * half of their schema's fields, and each load of an absent one is a megamorphic miss.
 */
export function pickFunction(schema: SchemaIR): FunctionDeclarationStructure {
  const lines = [
    'const r: Record<string, unknown> = {};',
    'let v: unknown;',
    ...schema.fields.map(
      (f) =>
        `if ((km & ${fieldBit(schema, f.name)}) !== 0 && (v = a?.[${quote(f.name)}] ?? s[${quote(f.name)}]) !== undefined) r[${quote(f.name)}] = v;`,
    ),
    'return r;',
  ];
  return {
    kind: StructureKind.Function,
    name: pickName(schema.name),
    docs: [
      `The accepted copy of a ${schema.name}: replaced values in \`a\`, the fields to keep in the mask \`km\`.`,
    ],
    parameters: [
      { name: 's', type: 'Readonly<Record<string, unknown>>' },
      { name: 'a', type: 'Readonly<Record<string, unknown>> | undefined' },
      { name: 'km', type: 'number' },
    ],
    returnType: 'Record<string, unknown>',
    statements: lines.join('\n'),
  };
}

/**
 * The generated check of one object schema, straight-line: one pass over the keys with a switch (known
 * fields checked inline, unknown keys per x-unknown-keys), required fields, then object rules. Returns the
 * object as accepted: the same object when nothing was dropped or replaced, else a copy (copy-on-write:
 * replaced values gather in `a`, dropped fields in the bit mask `dm`, the fields met in `pm`, and `pick`
 * builds the copy once).
 */
export function schemaFunction(ir: IR, schema: SchemaIR, scope: FileScope): FunctionDeclarationStructure {
  scope.lib('context', 'Ctx', true);
  scope.lib('problems', 'EventProblems', true);
  const cases = schema.fields.flatMap((f) => fieldCase(ir, schema, f, scope));
  const required = schema.fields
    .filter((f) => f.required)
    .map(
      (f) =>
        `if (s[${quote(f.name)}] === undefined) ${scope.lib('required', 'missingRequired')}(o, p, i, ${quote(f.name)}, ${quote(f.expected)});`,
    );
  const statements = [
    'let a: Record<string, unknown> | undefined;',
    'let dm = 0;',
    'let pm = 0;',
    ...(schema.unknownKeys === 'warning' ? ['let du = false;'] : []),
    ...block('for (const k in s) ', [
      'let x: unknown = s[k];',
      ...block('switch (k) ', [...cases, ...unknownKeysDefault(schema, scope)]),
    ]),
    ...required,
    `let t = a === undefined && dm === 0${schema.unknownKeys === 'warning' ? ' && !du' : ''} ? s : ${pickName(schema.name)}(s, a, pm & ~dm);`,
    ...schema.rules.flatMap((r) => objectRuleCode(ir, schema, r, scope)),
    'return t;',
  ];
  return {
    kind: StructureKind.Function,
    name: checkName(schema.name),
    docs: [doc(`Checks the fields of an object of schema ${schema.name}: ${schema.description}`)],
    parameters: PARAMS,
    returnType: 'Record<string, unknown>',
    statements: statements.join('\n'),
  };
}
