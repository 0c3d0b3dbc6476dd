import { type EventProblems, pathOf, received, report } from './problems.js';

function schemeIs(s: string, end: number, scheme: string): boolean {
  if (end !== scheme.length) return false;
  for (let k = 0; k < end; k++) {
    let c = s.charCodeAt(k);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== scheme.charCodeAt(k)) return false;
  }
  return true;
}

function hostChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 95 || c > 127
  );
}

/**
 * Rule kind `url` (C4): an absolute URL with one of `schemes` (lower-case), checked with one pass over the
 * characters: `scheme://host[:port][/path][?query][#fragment]`, no whitespace or control characters anywhere,
 * a non-empty host of letters, digits, `-`, `.`, `_` or non-ASCII letters (or a bracketed IPv6 address),
 * optional user info before `@`, a port of at most 5 digits. `"https: //www..."` (payload 07) fails.
 */
export function isUrl(s: string, schemes: readonly string[]): boolean {
  const n = s.length;
  const colon = s.indexOf(':');
  if (colon <= 0) return false;
  let known = false;
  for (const scheme of schemes) if (schemeIs(s, colon, scheme)) known = true;
  if (!known || s.charCodeAt(colon + 1) !== 47 || s.charCodeAt(colon + 2) !== 47) return false;
  for (let k = colon + 3; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c <= 32 || c === 127) return false;
  }
  // Authority: up to the first /, ? or #.
  let end = colon + 3;
  while (end < n) {
    const c = s.charCodeAt(end);
    if (c === 47 || c === 63 || c === 35) break;
    end++;
  }
  let start = s.lastIndexOf('@', end - 1) + 1;
  if (start < colon + 3) start = colon + 3;
  if (start >= end) return false;
  let k = start;
  if (s.charCodeAt(k) === 91) {
    const close = s.indexOf(']', k);
    if (close < 0 || close >= end || close === k + 1) return false;
    for (let q = k + 1; q < close; q++) {
      const c = s.charCodeAt(q);
      const hex = (c >= 48 && c <= 58) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70) || c === 46;
      if (!hex) return false;
    }
    k = close + 1;
  } else {
    const hostStart = k;
    while (k < end && s.charCodeAt(k) !== 58) {
      if (!hostChar(s.charCodeAt(k))) return false;
      k++;
    }
    if (k === hostStart) return false;
  }
  if (k === end) return true;
  if (s.charCodeAt(k) !== 58) return false;
  const digits = end - k - 1;
  if (digits > 5) return false;
  for (let q = k + 1; q < end; q++) {
    const c = s.charCodeAt(q);
    if (c < 48 || c > 57) return false;
  }
  return digits === 0 || Number(s.slice(k + 1, end)) <= 65535;
}

/** Reports `invalid_url`; `schemes` is the generated text ("http or https"). */
export function invalidUrl(o: EventProblems, p: string, i: number, name: string, x: string, schemes: string): void {
  const path = pathOf(p, i, name, -1);
  report(o, 'invalid_url', path, { path, schemes, received: received(x) });
}
