import {
  type InterfaceDeclarationStructure,
  type PropertySignatureStructure,
  StructureKind,
  type TypeAliasDeclarationStructure,
} from 'ts-morph';
import { doc } from '../../emit/literal.js';
import type { FieldIR, IR, RuleIR, SchemaIR, TypeIR } from '../../ir/types.js';

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

function limitText(v: { key: string; value: number } | number): string {
  return typeof v === 'number' ? String(v) : `${v.value} (limit \`${v.key}\`)`;
}

/** One line per rule, in words, so an editor hover says what the service checks. */
export function ruleSummary(r: RuleIR): string | undefined {
  switch (r.kind) {
    case 'required':
    case 'type':
      return undefined;
    case 'enum':
      return `One of ${r.values.map((v) => `\`${v}\``).join(', ')}${r.caseInsensitive ? ' (case-insensitive)' : ''}.`;
    case 'bounds': {
      const parts: string[] = [];
      if (r.minLength !== undefined) parts.push(`at least ${r.minLength} characters`);
      if (r.maxLength !== undefined) parts.push(`at most ${limitText(r.maxLength)} characters`);
      if (r.minItems !== undefined) parts.push(`at least ${limitText(r.minItems)} items`);
      if (r.maxItems !== undefined) parts.push(`at most ${limitText(r.maxItems)} items`);
      if (r.minimum !== undefined) parts.push(`>= ${r.minimum}`);
      if (r.maximum !== undefined) parts.push(`<= ${r.maximum}`);
      return `Bounds: ${parts.join(', ')}.`;
    }
    case 'pattern':
      return `Matches \`${r.pattern}\`${r.severity === 'warning' ? ' (otherwise dropped with a warning)' : ''}.`;
    case 'event-name':
      return 'A standard event name, or a custom name registered for the ad account (C10).';
    case 'unix-seconds':
      return `Unix seconds; at most ${r.maxAge.value} s old and ${r.maxFuture.value} s ahead; values >= ${r.milliseconds.value} are taken for milliseconds.`;
    case 'url':
      return `An absolute ${r.schemes.join('/')} URL.`;
    case 'code-list':
      return `A code of the ${r.list} list (${r.case} case)${r.severity === 'warning' ? '; otherwise dropped with a warning' : ''}.`;
    case 'ip-address':
      return 'A valid IPv4 or IPv6 address, not all zeros; otherwise dropped with a warning.';
    case 'user-agent':
      return 'A full browser User-Agent; empty, `Other` or bot values are dropped with a warning.';
    case 'sha256-hex':
      return 'A lower-case SHA-256 hex digest (64 characters); other values are dropped with a warning.';
    case 'decimal-string': {
      const parts = ['A string holding a finite decimal'];
      if (r.exclusiveMinimum !== undefined) parts.push(`> ${r.exclusiveMinimum}`);
      if (r.minimum !== undefined) parts.push(`>= ${r.minimum}`);
      if (r.maximum) parts.push(`<= ${limitText(r.maximum)}`);
      return `${parts.join(', ')}.`;
    }
    default:
      return undefined;
  }
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
