import type { FieldIR, IR, SchemaIR } from '../ir/types.js';
import { quote } from './code.js';
import { refName, schemaByName } from './lookup.js';
import { schemaAt } from './spec-at.js';

/** The field that a recommended-fields condition reads: the enum field holding every action source named. */
export function actionSourceField(ir: IR, event: SchemaIR, needed: Set<string>): FieldIR {
  const found = event.fields.filter((f) =>
    f.rules.some((r) => r.kind === 'enum' && [...needed].every((v) => r.values.includes(v))),
  );
  if (found.length !== 1)
    schemaAt(ir, event.name).fail('action-source-field', { sources: [...needed].join(', ') });
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
        schemaAt(ir, schema.name, f.name).fail('recommended-in-items', { schema: nested.name });
    }
  }
  return out;
}
