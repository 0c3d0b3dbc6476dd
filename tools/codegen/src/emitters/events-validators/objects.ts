import { type FunctionDeclarationStructure, StructureKind } from 'ts-morph';
import type { IR, SchemaIR } from '../../ir/types.js';
import { block, quote } from '../../kit/code.js';
import { doc, literal } from '../../kit/literal.js';
import { checkName, constName, fieldBit, pickName } from '../../kit/names.js';
import type { FileScope } from '../../kit/scope.js';
import { schemaAt } from '../../kit/spec-at.js';
import { fieldCase } from './fields.js';
import { objectRuleCode } from './rules.js';

const PARAMS = [
  { name: 's', type: 'Record<string, unknown>' },
  { name: 'p', type: 'string' },
  { name: 'i', type: 'number' },
  { name: 'c', type: 'Ctx' },
  { name: 'o', type: 'EventProblems' },
];

function unknownKeysDefault(ir: IR, schema: SchemaIR, scope: FileScope): string[] {
  const keys = () =>
    scope.constant(
      `KEYS_${constName(schema.name)}`,
      literal(schema.fields.map((f) => f.name)),
      'readonly string[]',
    );
  const unknownKey = () => scope.lib('unknown-keys', 'unknownKey');
  switch (schema.unknownKeys) {
    case 'allow':
      return schemaAt(ir, schema.name).fail('unknown-keys-allowed');
    case 'failed':
      return ['default:', `  ${unknownKey()}(o, 'unknown_field', p, i, k, ${keys()});`];
    case 'warning':
      return [
        'default:',
        `  ${unknownKey()}(o, 'unknown_field_dropped', p, i, k, ${keys()});`,
        '  du = true;',
      ];
    case 'request':
      return schemaAt(ir, schema.name, undefined, 'x-unknown-keys').fail('unknown-keys-request');
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
      ...block('switch (k) ', [...cases, ...unknownKeysDefault(ir, schema, scope)]),
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
