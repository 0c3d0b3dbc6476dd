import {
  addProblem,
  describeType,
  type EventProblems,
  formatMessage,
  MessageCache2,
  pathOf,
  received,
  report,
} from './problems.js';

const sensitiveMessages = new MessageCache2();

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
 * user_data fields) are described by their JSON type, never echoed (C4).
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
  if (!sensitive || (t !== 'a' && t !== 's')) {
    report(o, 'invalid_type', path, { path: path || 'event', expected, received: received(x), suggestion });
    return converted;
  }
  // A hashed field's message names only the JSON type received (its suggestion, if any, follows from that
  // type), and its path always comes with the same expected text: integrations that send scalars do it in
  // every event, so it is rendered once per path and type.
  const type = describeType(x);
  const message =
    sensitiveMessages.get(path, type) ??
    sensitiveMessages.set(
      path,
      type,
      formatMessage('invalid_type', { path: path || 'event', expected, received: type, suggestion }),
    );
  addProblem(o, 'invalid_type', path, message);
  return converted;
}
