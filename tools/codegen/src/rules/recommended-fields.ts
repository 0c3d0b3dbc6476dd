import type { IR, RecommendedFieldsRule, SchemaIR } from '../ir/types.js';
import { block, quote } from '../kit/code.js';
import { literal } from '../kit/literal.js';
import { eventNameField } from '../kit/lookup.js';
import { constName } from '../kit/names.js';
import { actionSourceField, recommendedFields } from '../kit/recommended.js';
import type { FileScope } from '../kit/scope.js';
import { schemaAt } from '../kit/spec-at.js';
import { noParams, type ObjectKind } from './kind.js';

/** One warning listing what the spec recommends (`x-recommended`) and the event lacks (C4, C88). */
function recommendedCode(ir: IR, schema: SchemaIR, scope: FileScope): string[] {
  const head: string[] = [];
  const fields = recommendedFields(ir, schema, '', 's', head, 0);
  if (fields.length === 0) return [];
  const sources = new Set<string>();
  for (const r of fields)
    if (r.field.recommended!.actionSources !== 'all')
      for (const a of r.field.recommended!.actionSources) sources.add(a);
  const lines = [...head];
  if (sources.size) lines.unshift(`const as = s[${quote(actionSourceField(ir, schema, sources).name)}];`);
  const groups = new Map<string, string>();
  const nameField = eventNameField(schema);
  for (const r of fields) {
    const names = r.field.recommended!.eventNames;
    if (names === null || groups.has(names.join())) continue;
    if (!nameField)
      return schemaAt(ir, schema.name).fail('event-name-field-missing', { what: 'x-recommended eventNames' });
    if (groups.size === 0) lines.push(`const en = s[${quote(nameField.name)}];`);
    const g = `g${groups.size}`;
    groups.set(names.join(), g);
    lines.push(`const ${g} = ${names.map((n) => `en === ${quote(n)}`).join(' || ')};`);
  }
  if (fields.length > 31) schemaAt(ir, schema.name).fail('too-many-recommended', { count: fields.length });
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

export const recommendedFieldsRule: ObjectKind<RecommendedFieldsRule> = {
  place: 'object',
  codes: ['recommended_missing'],
  parse: noParams({ kind: 'recommended-fields', severity: 'warning' }),
  code: (_r, schema, { ir, scope }) => recommendedCode(ir, schema, scope),
  doc: () =>
    'below the match-quality threshold, one warning names the missing recommended fields that raise it most (C88)',
  summary: () => undefined,
};
