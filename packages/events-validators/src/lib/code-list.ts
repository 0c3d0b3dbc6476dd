import {
  addProblem,
  type EventProblems,
  formatMessage,
  MessageCache2,
  pathOf,
  RecentProblems,
  received,
} from './problems.js';

/**
 * Rendered messages by path and value: a path names one field, whose code, list and expected text the
 * generated code always passes the same, and a batch repeats the same wrong value (an SDK's "en-US").
 */
const messages = new MessageCache2();
/** The wrong codes of fields met last (same field, same value): a repeat builds no path. */
const recent = new RecentProblems();

/**
 * Rule kind `code-list` (C4): `x` must be exactly a code of `codes` (currencies upper-case, languages
 * lower-case). Returns true when it is. Otherwise reports `code` (`invalid_code` fails the event,
 * `invalid_code_dropped` drops the value) and suggests the code the value most likely means: the value in the
 * list's case ("usd" -> "USD"), else its primary subtag ("en-US" -> "en").
 */
export function checkCode(
  o: EventProblems,
  code: 'invalid_code' | 'invalid_code_dropped',
  p: string,
  i: number,
  name: string,
  j: number,
  x: string,
  codes: ReadonlySet<string>,
  upper: boolean,
  expected: string,
): boolean {
  if (codes.has(x)) return true;
  // A field (j < 0) has one code and one expected text (generated), so (path, value) names the message.
  if (j < 0 && recent.add(o, p, i, name, x)) return false;
  const path = pathOf(p, i, name, j);
  const known = messages.get(path, x);
  if (known !== undefined) {
    if (j < 0 && x.length <= 256) recent.remember(o, p, i, name, x, code, path, known);
    else addProblem(o, code, path, known);
    return false;
  }
  const cased = upper ? x.trim().toUpperCase() : x.trim().toLowerCase();
  let suggestion: string | undefined;
  if (codes.has(cased)) suggestion = cased;
  else {
    const primary = cased.split(/[-_]/)[0] ?? '';
    if (codes.has(primary)) suggestion = primary;
  }
  const message = formatMessage(code, {
    path,
    expected,
    received: received(x),
    suggestion: suggestion === undefined ? undefined : JSON.stringify(suggestion),
  });
  messages.set(path, x, message);
  if (j < 0 && x.length <= 256) recent.remember(o, p, i, name, x, code, path, message);
  else addProblem(o, code, path, message);
  return false;
}
