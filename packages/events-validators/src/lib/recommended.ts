import { LIMITS, PROBLEM_CODES } from '@org/events-types';
import { type EventProblems, formatMessage, type Problem } from './problems.js';

/** The severity of the warning (spec/data/messages.yaml), read once. */
const FAILS = (PROBLEM_CODES.recommended_missing.severity as string) === 'failed';
/** C88: the advice is given below this match quality, naming at most this many fields. */
const SCORE_BELOW = LIMITS.recommended_warning_score_below.value;
const FIELDS_MAX = LIMITS.recommended_warning_fields_max.value;

/** Messages by (fields list, missing, applying): a batch mixes a few shapes of events, each rendered once. */
const messages = new WeakMap<readonly string[], Map<number, string | null>>();

/** Sum of the weights of the bits set in `mask`. */
function weightOf(mask: number, weights: readonly number[]): number {
  let w = 0;
  for (let k = 0; k < weights.length; k++) if (mask & (1 << k)) w += weights[k]!;
  return w;
}

/**
 * Rule kind `recommended-fields` (C4, C19, C88): the generated code sets bit k of `applying` when
 * `fields[k]` is recommended for this event's action source and name, and of `missing` when the event
 * lacks it. When the event is processed and its match quality (the weighted share of the applying fields
 * it carries) is below the spec's threshold, one short `recommended_missing` warning names the missing
 * fields that raise it most (highest weight first, spec order on ties), at most the spec's count. A failed
 * event gets no advice: its errors come first. Nothing is dropped.
 */
export function recommendedMissing(
  o: EventProblems,
  missing: number,
  applying: number,
  fields: readonly string[],
  weights: readonly number[],
): void {
  if (o.errors.length !== 0 && !FAILS) return;
  let cache = messages.get(fields);
  if (cache === undefined) {
    cache = new Map();
    messages.set(fields, cache);
  }
  // Both masks fit 31 bits (the generator checks): one number keys the pair.
  const key = missing * 2 ** 31 + applying;
  let message = cache.get(key);
  if (message === undefined) {
    const total = weightOf(applying, weights);
    const score = total === 0 ? 1 : 1 - weightOf(missing, weights) / total;
    if (score >= SCORE_BELOW) message = null;
    else {
      const order: number[] = [];
      for (let k = 0; k < fields.length; k++) if (missing & (1 << k)) order.push(k);
      order.sort((a, b) => weights[b]! - weights[a]! || a - b);
      const names = order.slice(0, FIELDS_MAX).map((k) => fields[k]!);
      message = formatMessage('recommended_missing', { fields: names.join(', ') });
    }
    if (cache.size >= 1024) cache.clear();
    cache.set(key, message);
  }
  if (message === null) return;
  const problem: Problem = { path: '', code: 'recommended_missing', message };
  if (FAILS) o.errors.push(problem);
  else o.warnings.push(problem);
}
