import type { RequiredRule } from '../ir/types.js';
import type { ValueKind } from './kind.js';

/** A field the object must have. The object's check tests every required key after its key pass. */
export const required: ValueKind<RequiredRule> = {
  place: 'field',
  codes: ['missing_required'],
  code: () => [],
  // The Required column of the field tables says it.
  doc: () => undefined,
  // The property's optional mark says it.
  summary: () => undefined,
};
