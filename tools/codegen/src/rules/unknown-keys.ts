import type { UnknownKeysRule } from '../ir/types.js';
import type { ObjectKind } from './kind.js';

/**
 * `x-unknown-keys`: what a key the schema does not name does (C4). Its check is the default branch of the
 * object's key switch (the validators' objects.ts), so the object rules add nothing.
 */
export const unknownKeys: ObjectKind<UnknownKeysRule> = {
  place: 'object',
  codes: ['unknown_field', 'unknown_field_dropped'],
  code: () => [],
  doc: (r) =>
    r.severity === 'request'
      ? 'unknown keys reject the whole request'
      : r.severity === 'failed'
        ? 'unknown keys fail the event'
        : 'unknown keys are dropped with a warning',
  summary: () => undefined,
};
