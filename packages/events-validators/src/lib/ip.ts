import { PROBLEM_CODES } from '@org/events-types';
import { type EventProblems, pathOf, report } from './problems.js';

// The texts of the {reason} parameter are spec data (messages.yaml); this kind only tells the cases apart.
const REASONS = PROBLEM_CODES.invalid_ip_dropped.reasons;

const INVALID = -1;
const ZERO = 0;
const VALID = 1;

/** Dotted-quad IPv4 in s[start, end): four decimal octets 0-255 without leading zeros. */
function ipv4(s: string, start: number, end: number): number {
  let parts = 0;
  let nonZero = false;
  let k = start;
  while (parts < 4) {
    const from = k;
    let v = 0;
    while (k < end) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57) break;
      v = v * 10 + (c - 48);
      k++;
    }
    const len = k - from;
    if (len === 0 || len > 3 || v > 255 || (len > 1 && s.charCodeAt(from) === 48)) return INVALID;
    if (v !== 0) nonZero = true;
    parts++;
    if (parts < 4) {
      if (k >= end || s.charCodeAt(k) !== 46) return INVALID;
      k++;
    }
  }
  if (k !== end) return INVALID;
  return nonZero ? VALID : ZERO;
}

function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
}

/** IPv6 (RFC 4291 text forms: `::` once, an IPv4 tail); no zone id. */
function ipv6(s: string): number {
  const n = s.length;
  if (n < 2) return INVALID;
  let groups = 0;
  let compressed = false;
  let nonZero = false;
  let k = 0;
  if (s.charCodeAt(0) === 58) {
    if (s.charCodeAt(1) !== 58) return INVALID;
    compressed = true;
    k = 2;
    if (k === n) return ZERO;
  }
  while (k < n) {
    const from = k;
    let v = 0;
    while (k < n) {
      const d = hexValue(s.charCodeAt(k));
      if (d < 0) break;
      v = v * 16 + d;
      k++;
    }
    if (k < n && s.charCodeAt(k) === 46) {
      // IPv4 tail: counts as two groups and ends the address.
      const tail = ipv4(s, from, n);
      if (tail === INVALID) return INVALID;
      if (tail === VALID) nonZero = true;
      groups += 2;
      k = n;
      break;
    }
    const len = k - from;
    if (len === 0 || len > 4) return INVALID;
    if (v !== 0) nonZero = true;
    groups++;
    if (k === n) break;
    if (s.charCodeAt(k) !== 58) return INVALID;
    k++;
    if (k < n && s.charCodeAt(k) === 58) {
      if (compressed) return INVALID;
      compressed = true;
      k++;
      if (k === n) break;
    } else if (k === n) return INVALID;
  }
  if (compressed ? groups > 7 : groups !== 8) return INVALID;
  return nonZero ? VALID : ZERO;
}

/** Whether `s` is a valid IPv4 or IPv6 address (all zeros included). */
export function isIp(s: string): boolean {
  return (s.indexOf(':') >= 0 ? ipv6(s) : ipv4(s, 0, s.length)) !== INVALID;
}

/** Product/version token of a user agent such as `Mozilla/5.0`: letters, `/`, a digit. */
function looksLikeUserAgent(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash <= 0 || slash + 1 >= s.length) return false;
  const c = s.charCodeAt(slash + 1);
  return c >= 48 && c <= 57;
}

/**
 * Rule kind `ip-address` (C4, seed 2.4): why `s` cannot be used as the client IP, or undefined when it can.
 * All-zero addresses (`0.0.0.0`, `::`) are refused; a user agent sent in its place (payload 05) is named.
 */
export function ipProblem(s: string): string | undefined {
  const state = s.indexOf(':') >= 0 ? ipv6(s) : ipv4(s, 0, s.length);
  if (state === VALID) return undefined;
  if (state === ZERO) return REASONS.all_zeros;
  if (looksLikeUserAgent(s)) return REASONS.user_agent;
  return REASONS.invalid;
}

/** Reports `invalid_ip_dropped`; the dropped value is not quoted (C70). */
export function ipDropped(o: EventProblems, p: string, i: number, name: string, reason: string): void {
  const path = pathOf(p, i, name, -1);
  report(o, 'invalid_ip_dropped', path, { path, reason });
}
