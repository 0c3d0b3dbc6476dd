import type { AgreesWithRule, IR, SchemaIR } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { literal } from '../kit/literal.js';
import { code, words } from '../kit/md.js';
import { constName, fieldBit, pickName } from '../kit/names.js';
import { schemaAt } from '../kit/spec-at.js';
import { type ObjectKind, stringParams } from './kind.js';

/** The schema of object property `name` of `schema`, which must have the field `field`. */
function innerSchema(ir: IR, schema: SchemaIR, name: string, field: string): SchemaIR {
  const f = schema.fields.find((x) => x.name === name);
  if (f?.type.kind !== 'ref' || f.type.target !== 'object')
    return schemaAt(ir, schema.name, undefined, 'x-rules').fail('agrees-with-not-object', { in: name });
  const target = f.type.name;
  const inner = ir.schemas.find((x) => x.name === target);
  if (!inner?.fields.some((x) => x.name === field))
    return schemaAt(ir, schema.name, undefined, 'x-rules').fail('agrees-with-no-field', { in: name, field });
  return inner;
}

export const agreesWith: ObjectKind<AgreesWithRule> = {
  place: 'object',
  codes: ['disagreeing_field_dropped'],
  reasons: { disagreeing_field_dropped: ['absent', 'dropped', 'value'] },
  parse: {
    params: ['in', 'field', 'with', 'except'],
    read: (r) => ({
      kind: 'agrees-with',
      severity: 'warning',
      ...stringParams(r, ['in', 'field', 'with']),
      except: r.at('except').present ? r.at('except').strings() : [],
    }),
  },
  names: (r) => [r.in, r.with],
  code(r, schema, { ir, scope }) {
    const inner = innerSchema(ir, schema, r.in, r.field);
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
  },
  doc: (r) =>
    `${code(`${r.in}.${r.field}`)} is kept only when it equals ${code(r.with)}${r.except.length ? `, and ${code(r.with)} is not ${words(r.except.map(code), 'or')}` : ''}`,
  summary: () => undefined,
};
