import type { BareRule, ValueKind } from './kind.js';

export type RequiredRule = BareRule<'required', 'failed'>;

/** A field the object must have. The object's check tests every required key after its key pass. */
export const required: ValueKind<RequiredRule> = {
  place: 'field',
  codes: ['missing_required'],
  code: () => [],
  // The Required column of the field tables says it.
  doc: () => undefined,
};
