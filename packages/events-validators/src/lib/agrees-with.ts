import { type EventProblems, pathOf, received, report } from './problems.js';

/**
 * Rule kind `agrees-with` (C23, seed 2.5: `np` only with a value agreed for `partner_name`): whether `field` of
 * the object `inner` is present and must be dropped because it does not equal `agreed`, or `agreed` is absent
 * or one of `except` (a value that names no partner). Compared case-insensitively: the naming convention is
 * lower case, and a capital letter is not a different partner.
 */
export function disagrees(
  inner: unknown,
  field: string,
  agreed: unknown,
  except: readonly string[],
): boolean {
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return false;
  const v = (inner as Record<string, unknown>)[field];
  // A value of the wrong type already failed the event (rule `type`).
  if (typeof v !== 'string') return false;
  if (typeof agreed !== 'string') return true;
  const a = agreed.toLowerCase();
  return except.includes(a) || v.toLowerCase() !== a;
}

/** Reports `disagreeing_field_dropped` for `<in>.<field>`, naming what `with` holds. */
export function disagreeingDropped(
  o: EventProblems,
  p: string,
  i: number,
  inName: string,
  field: string,
  withName: string,
  agreed: unknown,
): void {
  const path = `${pathOf(p, i, inName, -1)}.${field}`;
  report(o, 'disagreeing_field_dropped', path, {
    path,
    with: pathOf(p, i, withName, -1),
    agreed: agreed === undefined ? 'absent' : received(agreed),
  });
}
