import type { TypeRule } from '../ir/types.js';
import type { ValueKind } from './kind.js';

/**
 * The JSON type of a value. Its check opens the checks of every field and item (the other kinds run on a
 * value of the right type), so the field walker emits it (`typeCode` in the validators' fields.ts).
 */
export const type: ValueKind<TypeRule> = {
  place: 'value',
  codes: ['invalid_type'],
  code: () => [],
  // The Type column of the field tables says it.
  doc: () => undefined,
  // The property's type says it.
  summary: () => undefined,
};
