import { PROBLEM_CODES } from '@org/events-types';
import { type EventProblems, formatMessage, type Problem } from './problems.js';

const messages = new WeakMap<readonly string[], Map<number, string>>();
/** The severity of the warning (spec/data/messages.yaml), read once. */
const FAILS = (PROBLEM_CODES.recommended_missing.severity as string) === 'failed';
/**
 * The last messages by missing set, direct-mapped, in front of the map: a batch mixes a few shapes of
 * events, each with its own missing set, and a hit costs one comparison of numbers.
 */
const RECENT = 64;
const recentMissing = new Int32Array(RECENT);
const recentMessage: string[] = new Array<string>(RECENT).fill('');
const recentFields: (readonly string[] | undefined)[] = new Array(RECENT).fill(undefined);

/** The cache of the list met last: an event schema has one list, so a batch looks it up once. */
let lastFields: readonly string[] | undefined;
let lastCache: Map<number, string> | undefined;

/**
 * Rule kind `recommended-fields` (C4): one `recommended_missing` warning listing the fields the spec
 * recommends (`x-recommended`) for this event's action source and event name that it does not carry.
 * The generated code sets bit k of `missing` when `fields[k]` is missing; the message of each combination
 * is rendered once. Nothing is dropped.
 */
export function recommendedMissing(o: EventProblems, missing: number, fields: readonly string[]): void {
  const slot = (missing ^ (missing >>> 6) ^ (missing >>> 12) ^ (missing >>> 18)) & (RECENT - 1);
  let message: string | undefined;
  if (recentMissing[slot] === missing && recentFields[slot] === fields) message = recentMessage[slot]!;
  else {
    let cache = fields === lastFields ? lastCache : messages.get(fields);
    if (cache === undefined) {
      cache = new Map();
      messages.set(fields, cache);
    }
    lastFields = fields;
    lastCache = cache;
    message = cache.get(missing);
    if (message === undefined) {
      const names: string[] = [];
      for (let k = 0; k < fields.length; k++) if (missing & (1 << k)) names.push(fields[k]!);
      message = formatMessage('recommended_missing', { fields: names.join(', ') });
      if (cache.size >= 1024) cache.clear();
      cache.set(missing, message);
    }
    recentMissing[slot] = missing;
    recentFields[slot] = fields;
    recentMessage[slot] = message;
  }
  const problem: Problem = { path: '', code: 'recommended_missing', message };
  if (FAILS) o.errors.push(problem);
  else o.warnings.push(problem);
}
