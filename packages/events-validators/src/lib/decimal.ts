import { type EventProblems, pathOf, received, report } from './problems.js';

// Scan results of the last `scan` call (module state: no object per call).
let negative = false;
let integer = 0;
let integerDigits = 0;
let fractionNonZero = false;

/**
 * Whether `s` is a plain decimal: an optional sign, digits, and an optional fraction (`42`, `42.00`, `.5`,
 * `-5`). No exponent, spaces, thousands separators, `NaN` or `Infinity`. One character loop, which also
 * keeps the sign, the integer part and whether the fraction is non-zero, for exact comparisons.
 */
export function isDecimal(s: string): boolean {
  const n = s.length;
  let k = 0;
  const c0 = s.charCodeAt(0);
  negative = c0 === 45;
  if (c0 === 43 || c0 === 45) k = 1;
  integer = 0;
  integerDigits = 0;
  fractionNonZero = false;
  while (k < n) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) break;
    integer = integer * 10 + (c - 48);
    integerDigits++;
    k++;
  }
  if (k < n && s.charCodeAt(k) === 46) {
    k++;
    const from = k;
    while (k < n) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57) break;
      if (c !== 48) fractionNonZero = true;
      k++;
    }
    if (k === from) return false;
    return k === n;
  }
  return integerDigits > 0 && k === n;
}

/**
 * Compares the last scanned decimal with an integer bound exactly (-1, 0, 1), without parsing it into a
 * float; undefined when the integer part is too long to be exact (the caller then uses Number).
 */
function compareScanned(bound: number): number | undefined {
  if (integerDigits > 15 || !Number.isInteger(bound)) return undefined;
  const zero = integer === 0 && !fractionNonZero;
  if (zero) return bound > 0 ? -1 : bound < 0 ? 1 : 0;
  if (negative) {
    // -(integer + fraction) vs bound
    if (bound >= 0) return -1;
    const b = -bound;
    return integer > b || (integer === b && fractionNonZero) ? -1 : integer === b ? 0 : 1;
  }
  if (bound < 0) return 1;
  return integer > bound || (integer === bound && fractionNonZero) ? 1 : integer === bound ? 0 : -1;
}

function compare(x: string, bound: number): number {
  const exact = compareScanned(bound);
  if (exact !== undefined) return exact;
  const v = Number(x);
  return v > bound ? 1 : v < bound ? -1 : 0;
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
  if (!isDecimal(x) || (integerDigits > 308 && !Number.isFinite(Number(x)))) {
    const path = pathOf(p, i, name, j);
    report(o, 'invalid_decimal', path, { path, expected, received: received(x) });
    return false;
  }
  if (
    (exclusiveMinimum !== undefined && compare(x, exclusiveMinimum) <= 0) ||
    (minimum !== undefined && compare(x, minimum) < 0)
  ) {
    const path = pathOf(p, i, name, j);
    report(o, 'decimal_too_small', path, {
      path,
      bound: boundText(exclusiveMinimum, minimum),
      received: received(x),
    });
    return false;
  }
  if (maximum !== undefined && compare(x, maximum) > 0) {
    const path = pathOf(p, i, name, j);
    report(o, 'decimal_too_large', path, { path, max: maximum, received: received(x) });
    return false;
  }
  return true;
}
