import { type EventProblems, pathOf, received, report } from './problems.js';

/**
 * Rule kind `pattern`: `pattern_mismatch` (failed) or `pattern_mismatch_dropped` (warning, such as
 * partner_name, C4); the generated code tests the spec's regular expression and drops a warned value.
 */
export function patternMismatch(
  o: EventProblems,
  code: 'pattern_mismatch' | 'pattern_mismatch_dropped',
  p: string,
  i: number,
  name: string,
  j: number,
  x: string,
  expected: string,
): void {
  const path = pathOf(p, i, name, j);
  report(o, code, path, { path, expected, received: received(x) });
}
