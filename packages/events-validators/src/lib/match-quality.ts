import type { MatchQuality, MatchQualityIdentifier } from '@org/events-types';
import {
  ACTION_SOURCE_FIELD,
  EVENT_NAME_FIELD,
  IDENTIFIER_FIELDS,
  IDENTIFIERS_FIELD,
  RECOMMENDED_FIELDS,
} from '../generated/match-quality.gen.js';
import { validateEvent } from './batch.js';
import { present } from './present.js';

export type { MatchQuality, MatchQualityIdentifier };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at a dotted path of the spec's tables (`custom_data.currency`), or undefined. */
function at(o: unknown, path: string): unknown {
  let v = o;
  for (const k of path.split('.')) v = isObject(v) ? v[k] : undefined;
  return v;
}

/** Whether a problem's path is the field or something under it (`user_data.em[1]`). */
const under = (problem: string, field: string) =>
  problem === field || problem.startsWith(`${field}[`) || problem.startsWith(`${field}.`);

/**
 * How well an event can be matched to a user (C67), computed from the spec's own markings: every identifier
 * of user_data (present, and well formed: the validators report no problem at or under it, so a hashed field
 * holds SHA-256 hex digests and a plain one passes its own rules), the x-recommended fields that apply to
 * the event's action source and event name and are absent, and the weighted share of those that apply which
 * it carries (C88: each with its weight; an identifier counting only when well formed; 1 when none applies). Any value is accepted: what
 * is not an event has no identifiers.
 */
export function matchQuality(event: unknown): MatchQuality {
  const { errors, warnings } = validateEvent(event);
  const flagged = [...errors, ...warnings].map((p) => p.path);
  const holder = isObject(event) ? event[IDENTIFIERS_FIELD] : undefined;
  const identifiers: MatchQualityIdentifier[] = IDENTIFIER_FIELDS.map(({ field, key }) => {
    const has = isObject(holder) && present(holder[key]);
    return { field, present: has, well_formed: has && !flagged.some((p) => under(p, field)) };
  });
  const wellFormed = new Set(identifiers.filter((i) => i.well_formed).map((i) => i.field));
  const identifier = new Set(identifiers.map((i) => i.field));
  const source = ACTION_SOURCE_FIELD === null ? undefined : at(event, ACTION_SOURCE_FIELD);
  const name = EVENT_NAME_FIELD === null ? undefined : at(event, EVENT_NAME_FIELD);
  const applies = RECOMMENDED_FIELDS.filter(
    (r) =>
      (r.actionSources === null || r.actionSources.includes(source as string)) &&
      (r.eventNames === null || r.eventNames.includes(name as string)),
  );
  const missing = applies.filter((r) => !present(at(event, r.field))).map((r) => r.field);
  // C88: each field counts with its weight, as the recommended_missing warning weighs them.
  let total = 0;
  let carried = 0;
  for (const r of applies) {
    total += r.weight;
    if (identifier.has(r.field) ? wellFormed.has(r.field) : present(at(event, r.field))) carried += r.weight;
  }
  return {
    identifiers,
    missing_recommended: missing,
    score: total === 0 ? 1 : carried / total,
  };
}
