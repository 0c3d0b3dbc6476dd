import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import type { TypeIR } from '../../ir/types.js';
import { camel, pascal, quote } from '../../kit/code.js';
import { doc, literal } from '../../kit/literal.js';
import { refName } from '../../kit/lookup.js';
import { FileScope } from '../../kit/scope.js';
import { dataAt, schemaAt } from '../../kit/spec-at.js';
import type { ValidatorModel } from './model.js';

/** Normalization steps the runtime implements (packages/events-validators/src/lib/normalize-steps.ts). */
const STEPS = new Set([
  'trim',
  'lower',
  'nfc',
  'digits_only',
  'strip_leading_zeros',
  'letters_digits_only',
  'map_regions',
  'two_letters',
  'zip',
  'map_countries',
  'date_yyyymmdd',
  'map_gender',
  'require_at',
]);

/**
 * normalizers.gen.ts (C5): one straight-line normalizer per kind of spec/data/normalization.yaml, composing
 * the runtime's steps, and which user_data field uses which (x-normalize).
 */
export function normalizersFile(dir: string, m: ValidatorModel): EmittedFile {
  const { ir } = m;
  const scope = new FileScope();
  scope.lib('normalize-steps', 'StepContext', true);
  const functions = ir.normalization.kinds.map((k) => {
    for (const s of k.steps)
      if (!STEPS.has(s))
        dataAt(ir, 'normalization', `kinds.${k.name}`).fail('normalization-step-runtime', { step: s });
    const calls = k.steps.map((s) => {
      const fn = scope.lib('normalize-steps', camel(s));
      return `  v = ${fn}(v, x);\n  if (v === null) return null;`;
    });
    return `/** ${doc(`${k.name}: ${k.description}`)} */\nexport function normalize${pascal(k.name)}(s: string, x: StepContext): string | null {\n  let v: string | null = s;\n${calls.join('\n')}\n  return v === '' ? null : v;\n}`;
  });
  const kinds = new Set(ir.normalization.kinds.map((k) => k.name));
  const fields: string[] = [];
  for (const s of m.schemas)
    for (const f of s.fields)
      if (f.normalize) {
        if (!kinds.has(f.normalize))
          schemaAt(ir, s.name, f.name, 'x-normalize').fail('normalize-kind-unknown', { kind: f.normalize });
        fields.push(`  ${f.name}: normalize${pascal(f.normalize)},`);
      }
  // C70: the event member whose object holds the hashed fields (user_data), read by the request log's
  // redaction wherever such an object sits in a body.
  const holder = m.schemas.find((s) => s.fields.some((f) => f.normalize));
  const members = holder ? m.event.fields.filter((f) => refName(f.type) === holder.name) : [];
  if (holder && members.length !== 1)
    schemaAt(ir, m.event.name).fail('identifier-holder', { count: members.length });
  const path = `${dir}/normalizers.gen.ts`;
  // C117: every member the service knows, per object schema from the batch body down, with what its value
  // holds: 's' a scalar, 's[]' scalars, a schema name an object, 'Name[]' objects. The request log reads
  // anything else (an unknown member, an object where a scalar belongs) as possibly personal data.
  const described = (t: TypeIR): string =>
    t.kind === 'array' ? `${described(t.items)}[]` : (refName(t) ?? 's');
  const known = Object.fromEntries(
    [m.request, ...m.schemas].map((s) => [
      s.name,
      Object.fromEntries(s.fields.map((f) => [f.name, described(f.type)])),
    ]),
  );
  const statements = [
    ...scope.importStatements(),
    ...functions,
    `/** Each hashed user_data field and its normalizer (x-normalize). */\nexport const FIELD_NORMALIZERS: Readonly<Record<string, (s: string, x: StepContext) => string | null>> = {\n${fields.join('\n')}\n};`,
    `/** user_data fields sent as they are, never hashed. */\nexport const UNHASHED_FIELDS: ReadonlySet<string> = new Set(${literal(ir.normalization.unhashed)});`,
    `/** Name of the country field, whose normalized value selects the zip rule (C5). */\nexport const COUNTRY_FIELD: string | undefined = ${(() => {
      const c = m.schemas.flatMap((s) => s.fields).find((f) => f.normalize === 'country');
      return c ? quote(c.name) : 'undefined';
    })()};`,
    `/** The event member holding the hashed fields (C21, C70). */\nexport const PERSONAL_DATA_MEMBER: string | undefined = ${members[0] ? quote(members[0].name) : 'undefined'};`,
    `/** The schemas of a batch body and of one event, roots of KNOWN_MEMBERS (C117). */\nexport const BODY_SCHEMA = ${quote(m.request.name)};\nexport const EVENT_SCHEMA = ${quote(m.event.name)};`,
    `/** Each member the service knows, per object schema: 's' a scalar, 's[]' scalars, a schema name an object, 'Name[]' objects (C117). */\nexport const KNOWN_MEMBERS: Readonly<Record<string, Readonly<Record<string, string>>>> = ${literal(known)};`,
  ];
  return { path, content: tsFile(path, statements) };
}
