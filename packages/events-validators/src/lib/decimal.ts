import { type EventProblems, pathOf, received, report } from './problems.js';

/**
 * Whether `s` is a plain decimal: an optional sign, digits, and an optional fraction (`42`, `42.00`, `.5`,
 * `-5`). No exponent, spaces, thousands separators, `NaN` or `Infinity`. A character loop.
 */
export function isDecimal(s: string): boolean {
  const n = s.length;
  let k = 0;
  const c0 = s.charCodeAt(0);
  if (c0 === 43 || c0 === 45) k = 1;
  let digits = 0;
  while (k < n) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) break;
    digits++;
    k++;
  }
  if (k < n && s.charCodeAt(k) === 46) {
    k++;
    let fraction = 0;
    while (k < n) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57) break;
      fraction++;
      k++;
    }
    if (fraction === 0) return false;
    digits += fraction;
  }
  return digits > 0 && k === n;
}

function boundText(exclusiveMinimum: number | undefined, minimum: number | undefined): string {
  return exclusiveMinimum !== undefined ? `greater than ${exclusiveMinimum}` : `at least ${minimum}`;
}

/**
 * Rule kind `decimal-string` (C4: value "undefined", "[27.5,123]", "-5", unusually high): a string holding a
 * finite decimal within the bounds. Returns true when it passes; otherwise reports `invalid_decimal`,
 * `decimal_too_small` or `decimal_too_large`.
 */
export function checkDecimal(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  j: number,
  x: string,
  expected: string,
  exclusiveMinimum: number | undefined,
  minimum: number | undefined,
  maximum: number | undefined,
): boolean {
  if (!isDecimal(x)) {
    const path = pathOf(p, i, name, j);
    report(o, 'invalid_decimal', path, { path, expected, received: received(x) });
    return false;
  }
  const v = Number(x);
  if ((exclusiveMinimum !== undefined && !(v > exclusiveMinimum)) || (minimum !== undefined && !(v >= minimum))) {
    const path = pathOf(p, i, name, j);
    report(o, 'decimal_too_small', path, { path, bound: boundText(exclusiveMinimum, minimum), received: received(x) });
    return false;
  }
  if (maximum !== undefined && !(v <= maximum)) {
    const path = pathOf(p, i, name, j);
    report(o, 'decimal_too_large', path, { path, max: maximum, received: received(x) });
    return false;
  }
  if (!Number.isFinite(v)) {
    const path = pathOf(p, i, name, j);
    report(o, 'invalid_decimal', path, { path, expected, received: received(x) });
    return false;
  }
  return true;
}
