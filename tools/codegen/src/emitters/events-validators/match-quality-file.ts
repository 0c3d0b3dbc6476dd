import type { EmittedFile } from '../../emit/emitter.js';
import { tsFile } from '../../emit/ts-file.js';
import { literal } from '../../kit/literal.js';
import { actionSourceField, recommendedFields } from '../../kit/recommended.js';
import { schemaAt } from '../../kit/spec-at.js';
import type { ValidatorModel } from './model.js';

/**
 * match-quality.gen.ts (C67): the tables `matchQuality` reads, from the spec's own markings: the identifier
 * fields (every field of the object holding x-normalize fields, hashed when marked), the x-recommended
 * fields with the action sources and event names they apply to, and the fields those conditions read.
 */
export function matchQualityFile(dir: string, m: ValidatorModel): EmittedFile {
  const { ir, event } = m;
  const holders = event.fields.filter((f) => {
    if (f.type.kind !== 'ref' || f.type.target !== 'object') return false;
    const name = f.type.name;
    return ir.schemas.find((s) => s.name === name)?.fields.some((x) => x.normalize !== undefined) ?? false;
  });
  if (holders.length !== 1) schemaAt(ir, event.name).fail('identifier-holder', { count: holders.length });
  const holder = holders[0]!;
  const holderSchema = ir.schemas.find((s) => holder.type.kind === 'ref' && s.name === holder.type.name)!;
  // Identifiers are the hashed fields and those sent as is (normalization `unhashed`); others of the holder,
  // such as customer_type, describe the user without identifying them.
  const unhashed = new Set(ir.normalization.unhashed);
  const identifiers = holderSchema.fields
    .filter((f) => f.normalize !== undefined || unhashed.has(f.name))
    .map((f) => ({
      field: `${holder.name}.${f.name}`,
      key: f.name,
      hashed: f.normalize !== undefined,
    }));
  const recommended = recommendedFields(ir, event, '', 's', [], 0).map((r) => {
    const rec = r.field.recommended!;
    return {
      field: r.path,
      actionSources: rec.actionSources === 'all' ? null : rec.actionSources,
      eventNames: rec.eventNames,
      weight: rec.weight,
    };
  });
  const sources = new Set(recommended.flatMap((r) => r.actionSources ?? []));
  const nameField = event.fields.find((f) => f.rules.some((r) => r.kind === 'event-name'));
  const path = `${dir}/match-quality.gen.ts`;
  const statements = [
    `/** The object of the event holding its user identifiers (C67). */\nexport const IDENTIFIERS_FIELD = ${literal(holder.name)};`,
    `/** Each identifier field, in spec order; hashed when the spec marks it x-normalize (C5). */\nexport const IDENTIFIER_FIELDS: readonly { readonly field: string; readonly key: string; readonly hashed: boolean }[] = ${literal(identifiers)};`,
    `/** Each x-recommended field; null conditions apply to every action source or event name (C4); its weight (C88). */\nexport const RECOMMENDED_FIELDS: readonly { readonly field: string; readonly actionSources: readonly string[] | null; readonly eventNames: readonly string[] | null; readonly weight: number }[] = ${literal(recommended)};`,
    `/** The field the action-source conditions read. */\nexport const ACTION_SOURCE_FIELD: string | null = ${literal(sources.size ? actionSourceField(ir, event, sources).name : null)};`,
    `/** The field the event-name conditions read. */\nexport const EVENT_NAME_FIELD: string | null = ${literal(nameField?.name ?? null)};`,
  ];
  return { path, content: tsFile(path, statements) };
}
