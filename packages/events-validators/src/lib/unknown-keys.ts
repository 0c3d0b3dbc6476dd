import { EVENT_NAME_SUGGESTIONS } from '@org/events-types';
import { addProblem, cut, type EventProblems, formatMessage, pathOf, RecentProblems } from './problems.js';
import { nearest } from './suggest.js';

const MAX_DISTANCE = EVENT_NAME_SUGGESTIONS.maxDistance;

/**
 * Rendered messages by schema (`known`), object path and key: a batch repeats the same unknown key (fn in
 * every user_data), and these lookups use strings whose hash V8 has already computed (keys from JSON.parse,
 * paths from the generated code), so a repeat costs two map reads.
 */
const cache = new WeakMap<readonly string[], { size: number; paths: Map<string, Map<string, string>> }>();

/** The unknown keys met last (fn in every user_data): a repeat compares references and builds no path. */
const recent = new RecentProblems();

/**
 * Rule kind `unknown-keys` (C4): `unknown_field` fails the event (event, custom_data, contents items),
 * `unknown_field_dropped` drops the key (user_data, such as fn). `known` are the schema's fields, for the
 * "Did you mean" suggestion (same nearness as event names); one schema always uses the same code.
 */
export function unknownKey(
  o: EventProblems,
  code: 'unknown_field' | 'unknown_field_dropped',
  p: string,
  i: number,
  key: string,
  known: readonly string[],
): void {
  if (recent.add(o, p, i, key, known)) return;
  let c = cache.get(known);
  if (c === undefined || c.size >= 1024) {
    c = { size: 0, paths: new Map() };
    cache.set(known, c);
  }
  const at = i < 0 ? p : pathOf(p, i, '', -1);
  let byKey = c.paths.get(at);
  if (byKey === undefined) {
    byKey = new Map();
    c.paths.set(at, byKey);
  }
  const path = pathOf(p, i, cut(key), -1);
  let message = byKey.get(key);
  if (message === undefined) {
    message = formatMessage(code, { path, suggestion: nearest(key, known, MAX_DISTANCE) });
    // A long key is never worth remembering (and would keep a large string alive).
    if (key.length <= 256) {
      byKey.set(key, message);
      c.size++;
    }
  }
  if (key.length <= 256) recent.remember(o, p, i, key, known, code, path, message);
  else addProblem(o, code, path, message);
}
