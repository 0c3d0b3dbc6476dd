import type { DeletionKeyIR, SchemaIR } from '../ir/types.js';
import type { Reader } from '../load/reader.js';

/** The schema of a conversion deletion request's targets, whose lists `deletionKeys` names (C91). */
export const DELETION_TARGETS_SCHEMA = 'ConversionDeletionRequestTargets';

/**
 * C91, C124: normalization.yaml `deletionKeys`, each list of the deletion targets and the user_data field its
 * entries are matched against. Every list of the targets schema has one (a list without would be accepted and
 * match nothing), and each field identifies a user: a hashed field of the object holding them, or one of
 * `unhashed` there (as match quality counts identifiers, C67).
 */
export function readDeletionKeys(
  r: Reader,
  schemas: readonly SchemaIR[],
  unhashed: readonly string[],
): DeletionKeyIR[] {
  const targets = schemas.find((s) => s.name === DELETION_TARGETS_SCHEMA);
  if (!targets) return r.fail('unknown-schema', { name: DELETION_TARGETS_SCHEMA });
  const holder = schemas.find((s) => s.fields.some((f) => f.normalize !== undefined));
  const keys = r.entries().map(([target, at]): DeletionKeyIR => {
    if (!targets.fields.some((f) => f.name === target))
      at.fail('deletion-target-unknown', { target, schema: targets.name });
    const field = at.string();
    const identifier = holder?.fields.find(
      (f) => f.name === field && (f.normalize !== undefined || unhashed.includes(f.name)),
    );
    if (!identifier)
      return at.fail('deletion-key-not-identifier', { field, schema: holder?.name ?? 'the user data' });
    return { target, field, hashed: identifier.normalize !== undefined };
  });
  for (const f of targets.fields)
    if (!keys.some((k) => k.target === f.name))
      r.fail('deletion-target-unmatched', { target: f.name, schema: targets.name });
  return keys;
}
