import { PROBLEM_CODES } from '@org/events-types';
import { type EventProblems, formatTemplate, pathOf, received, report } from './problems.js';

// The texts of the {reason} parameter are spec data (messages.yaml); this kind only tells the cases apart.
const REASONS = PROBLEM_CODES.disagreeing_field_dropped.reasons;

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

/**
 * Reports `disagreeing_field_dropped` for `<in>.<field>`, naming what `with` holds: its value, or that it was
 * dropped by a warning of its own (sent, but not a valid partner name), or that it is absent.
 */
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
  const withPath = pathOf(p, i, withName, -1);
  const reason =
    agreed !== undefined
      ? formatTemplate(REASONS.value, { value: received(agreed) })
      : o.warnings.some((w) => w.path === withPath)
        ? REASONS.dropped
        : REASONS.absent;
  report(o, 'disagreeing_field_dropped', path, { path, with: withPath, reason });
}
