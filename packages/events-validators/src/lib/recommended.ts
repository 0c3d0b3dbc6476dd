import { addProblem, type EventProblems, formatMessage } from './problems.js';

const messages = new WeakMap<readonly string[], Map<number, string>>();
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
  let cache = fields === lastFields ? lastCache : messages.get(fields);
  if (cache === undefined) {
    cache = new Map();
    messages.set(fields, cache);
  }
  lastFields = fields;
  lastCache = cache;
  let message = cache.get(missing);
  if (message === undefined) {
    const names: string[] = [];
    for (let k = 0; k < fields.length; k++) if (missing & (1 << k)) names.push(fields[k]!);
    message = formatMessage('recommended_missing', { fields: names.join(', ') });
    if (cache.size >= 1024) cache.clear();
    cache.set(missing, message);
  }
  addProblem(o, 'recommended_missing', '', message);
}
