import { type EventProblems, pathOf, report } from './problems.js';

/** Rule kind `required` (C4: action_source, event_id, event_name, event_time, user_data). */
export function missingRequired(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  expected: string,
): void {
  const path = pathOf(p, i, name, -1);
  report(o, 'missing_required', path, { path, expected });
}
