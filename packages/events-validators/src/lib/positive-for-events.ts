import { isDecimal } from './decimal.js';
import { type EventProblems, pathOf, received, report } from './problems.js';

/**
 * Rule kind `positive-for-events` (C86, C120): on the events of a group (purchases), `inner[field]` must be
 * greater than 0, and a zero fails the event (`zero_value_on_event`); on other events a zero is processed,
 * and the spec may make it a warning (`zero_value_kept`, C120: Pinterest writes "should not"). The generated
 * code calls this with the code that applies to the event; the field's own rule (`decimal-string`, minimum 0)
 * has already failed what is not a decimal or is negative, so only a well-formed zero is left to report.
 */
export function zeroOnEvent(
  o: EventProblems,
  p: string,
  i: number,
  inName: string,
  field: string,
  inner: unknown,
  eventName: string,
  code: 'zero_value_on_event' | 'zero_value_kept',
): void {
  if (typeof inner !== 'object' || inner === null) return;
  const sent = (inner as Record<string, unknown>)[field];
  // A number was already reported as the wrong type; its string form is checked too, so one answer names both.
  const v = typeof sent === 'number' ? String(sent) : sent;
  if (typeof v !== 'string') return;
  // Most values start with a digit 1-9: never zero, known without the decimal check (issue 25).
  const first = v.charCodeAt(0);
  if (first >= 0x31 && first <= 0x39) return;
  if (!isDecimal(v) || Number(v) !== 0) return;
  const path = pathOf(p, i, `${inName}.${field}`, -1);
  report(o, code, path, { path, event: eventName, received: received(v) });
}
