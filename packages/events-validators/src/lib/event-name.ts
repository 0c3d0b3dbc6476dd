import { EVENT_NAME_SUGGESTIONS, STANDARD_EVENT_NAMES } from '@org/events-types';
import type { Ctx } from './context.js';
import { describeShape, readsAsContact } from './json-type.js';
import { cut, type EventProblems, pathOf, report } from './problems.js';
import { nearest } from './suggest.js';

const STANDARD: ReadonlySet<string> = new Set(STANDARD_EVENT_NAMES);
const EXAMPLES = EVENT_NAME_SUGGESTIONS.examples.join(', ');

/**
 * Rule kind `event-name` (C4, C10): a standard API name (seed 2.2, case-sensitive) or a custom name registered
 * for the ad account (matched case-insensitively). Returns the name to store (a custom name as registered),
 * or undefined after reporting `invalid_event_name` with the nearest standard name when one is near.
 */
export function checkEventName(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  x: string,
  c: Ctx,
): string | undefined {
  if (STANDARD.has(x)) return x;
  if (c.custom !== undefined) {
    const registered = c.custom.get(x.toLowerCase());
    if (registered !== undefined) return registered;
  }
  report(o, 'invalid_event_name', pathOf(p, i, name, -1), {
    // C21, C117: a name that reads as a contact is a sender's mistake to name, not a value to echo.
    name: readsAsContact(x) ? describeShape(x) : cut(x),
    examples: EXAMPLES,
    suggestion: nearest(x, STANDARD_EVENT_NAMES, EVENT_NAME_SUGGESTIONS.maxDistance),
  });
  return undefined;
}
