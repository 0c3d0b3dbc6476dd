import { type EventProblems, pathOf, received, report } from './problems.js';

/**
 * Length in characters (Unicode code points, as JSON Schema counts them). Generated code calls it only when
 * `s.length` (UTF-16 units, never fewer than code points) is over the limit, so the happy path is one compare.
 */
export function codePoints(s: string): number {
  let n = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c <= 0xdbff && k + 1 < s.length) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) k++;
    }
    n++;
  }
  return n;
}

/**
 * Rule kind `bounds`, maxLength: reports `string_too_long` (or, for a cap with no source, the warning
 * `string_too_long_dropped`, C87) and returns false when `s` has more than `max` characters.
 */
export function checkMaxLength(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  j: number,
  s: string,
  max: number,
  code: 'string_too_long' | 'string_too_long_dropped' = 'string_too_long',
): boolean {
  const length = codePoints(s);
  if (length <= max) return true;
  const path = pathOf(p, i, name, j);
  report(o, code, path, { path, length, max });
  return false;
}

/** Rule kind `bounds`, minLength 1: `empty_string` names what to send. */
export function emptyString(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  j: number,
  expected: string,
): void {
  const path = pathOf(p, i, name, j);
  report(o, 'empty_string', path, { path, expected });
}

/** Rule kind `bounds`, maxItems: `too_many_items`. */
export function tooManyItems(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  count: number,
  max: number,
): void {
  const path = pathOf(p, i, name, -1);
  report(o, 'too_many_items', path, { path, count, max });
}

/** Rule kind `bounds`, minimum/maximum: `integer_out_of_range`; `bound` is the generated text ("at least 0"). */
export function outOfRange(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  j: number,
  x: number,
  bound: string,
): void {
  const path = pathOf(p, i, name, j);
  report(o, 'integer_out_of_range', path, { path, bound, received: received(x) });
}
