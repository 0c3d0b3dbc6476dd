import {
  type InterfaceDeclarationStructure,
  type PropertySignatureStructure,
  StructureKind,
  type TypeAliasDeclarationStructure,
} from 'ts-morph';
import type { FieldIR, IR, RuleIR, SchemaIR, TypeIR } from '../../ir/types.js';
import { doc } from '../../kit/literal.js';
import { kindOf } from '../../rules/index.js';

export const GENERIC = 'TCustomEventName';

/** Schemas that carry an event-name rule, or reference one that does, get the custom-name type parameter. */
export function genericSchemas(ir: IR): Set<string> {
  const generic = new Set(
    ir.schemas
      .filter((s) => s.fields.some((f) => f.rules.some((r) => r.kind === 'event-name')))
      .map((s) => s.name),
  );
  const refs = (t: TypeIR): string[] =>
    t.kind === 'ref' ? [t.name] : t.kind === 'array' ? refs(t.items) : [];
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of ir.schemas)
      if (!generic.has(s.name) && s.fields.some((f) => refs(f.type).some((r) => generic.has(r)))) {
        generic.add(s.name);
        grew = true;
      }
  }
  return generic;
}

export function tsType(t: TypeIR, generic: Set<string>): string {
  switch (t.kind) {
    case 'primitive':
      return t.name === 'integer' ? 'number' : t.name;
    case 'array': {
      const inner = tsType(t.items, generic);
      return /[|&\s]/.test(inner) ? `Array<${inner}>` : `${inner}[]`;
    }
    case 'ref':
      return generic.has(t.name) ? `${t.name}<${GENERIC}>` : t.name;
  }
}

/** One line per rule, in words, so an editor hover says what the service checks (its kind's `summary`). */
function ruleSummary(r: RuleIR): string | undefined {
  return kindOf(r).summary(r);
}

function fieldDocs(f: FieldIR): string[] {
  const lines = [doc(f.description)];
  const rules = [
    ...f.rules.map(ruleSummary),
    ...f.itemRules.map((r) => ruleSummary(r)?.replace(/^/, 'Each item: ')),
  ].filter((x): x is string => Boolean(x));
  if (rules.length) lines.push('', ...rules.map((r) => doc(r)));
  if (f.normalize) lines.push('', `Normalization before hashing (C5): \`${f.normalize}\`.`);
  if (f.recommended) {
    const as =
      f.recommended.actionSources === 'all' ? 'all action sources' : f.recommended.actionSources.join(', ');
    const en = f.recommended.eventNames ? ` for ${f.recommended.eventNames.join(', ')}` : '';
    lines.push('', `Recommended (${as}${en}).`);
  }
  if (f.example !== undefined) lines.push('', `@example ${JSON.stringify(f.example)}`);
  const text = lines.join('\n').trim();
  return text ? [text] : [];
}

function property(f: FieldIR, generic: Set<string>): PropertySignatureStructure {
  let type = tsType(f.type, generic);
  if (f.rules.some((r) => r.kind === 'event-name')) type = `StandardEventName | ${GENERIC}`;
  if (f.nullable) type = `${type} | null`;
  return {
    kind: StructureKind.PropertySignature,
    name: f.name,
    type,
    hasQuestionToken: !f.required,
    docs: fieldDocs(f),
  };
}

export function schemaInterface(s: SchemaIR, generic: Set<string>): InterfaceDeclarationStructure {
  return {
    kind: StructureKind.Interface,
    name: s.name,
    isExported: true,
    typeParameters: generic.has(s.name) ? [{ name: GENERIC, constraint: 'string', default: 'never' }] : [],
    docs: s.description ? [doc(s.description)] : [],
    properties: s.fields.map((f) => property(f, generic)),
  };
}

export function enumAlias(
  name: string,
  constName: string,
  description: string,
): TypeAliasDeclarationStructure {
  return {
    kind: StructureKind.TypeAlias,
    name,
    isExported: true,
    type: `(typeof ${constName})[number]`,
    docs: [doc(description)],
  };
}
