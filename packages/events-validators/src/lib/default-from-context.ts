import { type EventProblems, pathOf, report } from './problems.js';

/**
 * Rule kind `default-from-context` (C4, seed 2.5: value without currency): reports `currency_defaulted`,
 * naming the context value (the ad account currency) when the caller gave it. The generated code also
 * stores that value in the accepted event.
 */
export function defaultFromContext(
  o: EventProblems,
  p: string,
  i: number,
  field: string,
  when: string,
  value: string | undefined,
): void {
  const path = pathOf(p, i, field, -1);
  report(o, 'currency_defaulted', path, { path, when: pathOf(p, i, when, -1), value });
}
