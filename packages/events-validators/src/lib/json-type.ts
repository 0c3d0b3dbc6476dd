import { VALUE_SHAPES } from '@org/events-types';
import { isIp } from './ip.js';
import { type EventProblems, formatTemplate, pathOf, received, report } from './problems.js';
import { hexState } from './sha256-hex.js';

// The shape texts are spec data (messages.yaml `shapes`); this only tells the cases apart.
const SHAPES: Readonly<Record<keyof typeof VALUE_SHAPES, string>> = VALUE_SHAPES;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[\d\s().-]{7,24}$/;

/** A calendar date is not a phone number, though its digits and dashes would pass for one. */
const DATE = /^(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-]\d{4})$/;

function readsAsPhone(s: string): boolean {
  return PHONE.test(s) && !DATE.test(s) && !isIp(s) && s.replace(/\D/g, '').length >= 7;
}

/**
 * Whether a string reads as a raw e-mail address, phone number or IP address: what C21 names, and what C117
 * does not keep where the service knows no member.
 */
export function readsAsContact(v: string): boolean {
  const s = v.trim();
  return EMAIL.test(s) || readsAsPhone(s) || isIp(s);
}

/**
 * The shape of a value that must not be quoted (C21: hashed fields, and objects holding them): what it is
 * and how large, never a character of it. A raw e-mail address or phone number is named as such, since
 * that is the mistake to fix.
 */
export function describeShape(v: unknown): string {
  if (v === null) return SHAPES.null;
  if (Array.isArray(v)) return formatTemplate(SHAPES.array, { count: v.length });
  switch (typeof v) {
    case 'string': {
      const s = v.trim();
      if (s === '') return SHAPES.empty;
      if (hexState(s) !== 0) return SHAPES.digest;
      if (EMAIL.test(s)) return SHAPES.email;
      if (isIp(s)) return SHAPES.ip;
      if (readsAsPhone(s)) return SHAPES.phone;
      return formatTemplate(SHAPES.string, { count: [...v].length });
    }
    case 'number':
      return Number.isInteger(v) ? SHAPES.integer : SHAPES.number;
    case 'boolean':
      return SHAPES.boolean;
    case 'object':
      return formatTemplate(SHAPES.object, { count: Object.keys(v as object).length });
    default:
      return SHAPES.object;
  }
}

/** Expected JSON type of a value, as generated validators name it. */
export type JsonType = 's' | 'i' | 'n' | 'b' | 'a' | 'o';

function integerText(s: string): number | undefined {
  const n = s.length;
  if (n === 0 || n > 16) return undefined;
  for (let k = s.charCodeAt(0) === 45 ? 1 : 0; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c < 48 || c > 57) return undefined;
  }
  const v = Number(s);
  return Number.isSafeInteger(v) && s !== '-' ? v : undefined;
}

/**
 * Rule kind `type` (C4: value given as a number, a hashed field given as a scalar, event_time as a string...).
 * Reports `invalid_type` and returns the value converted to the expected type when an obvious conversion
 * exists (it is then named in the message as what to send, and the caller keeps checking the converted
 * value so one answer lists every problem); returns undefined otherwise. `sensitive` values (hashed
 * user_data fields and objects holding them) are described by their shape, never echoed (C21).
 */
export function mismatch(
  o: EventProblems,
  p: string,
  i: number,
  name: string,
  j: number,
  x: unknown,
  expected: string,
  t: JsonType,
  sensitive: boolean,
): unknown {
  let converted: unknown;
  let suggestion: string | undefined;
  switch (t) {
    case 's':
      if (!sensitive && ((typeof x === 'number' && Number.isFinite(x)) || typeof x === 'boolean')) {
        converted = String(x);
        suggestion = JSON.stringify(converted);
      }
      break;
    case 'i':
    case 'n':
      if (typeof x === 'string') {
        const v = t === 'i' ? integerText(x) : x.trim() === '' ? undefined : Number(x);
        if (v !== undefined && Number.isFinite(v)) {
          converted = v;
          suggestion = String(v);
        }
      }
      break;
    case 'b':
      if (x === 'true' || x === 'false') {
        converted = x === 'true';
        suggestion = x;
      }
      break;
    case 'a':
      if (x !== null && x !== undefined && !Array.isArray(x)) {
        converted = [x];
        suggestion = sensitive ? 'the value as a one-element array' : received([x]);
      }
      break;
    case 'o':
      break;
  }
  const path = pathOf(p, i, name, j);
  if (t === 'i' && typeof x === 'number' && Number.isInteger(x)) {
    // C38: an integer, but beyond what every JSON reader holds exactly.
    report(o, 'integer_not_exact', path, { path: path || 'event', received: received(x) });
    return undefined;
  }
  report(o, 'invalid_type', path, {
    path: path || 'event',
    expected,
    received: sensitive ? describeShape(x) : received(x),
    suggestion,
  });
  return converted;
}
