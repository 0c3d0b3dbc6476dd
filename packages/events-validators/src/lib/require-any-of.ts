import { present } from './present.js';
import { type EventProblems, pathOf, report } from './problems.js';

function words(alternatives: readonly (readonly string[])[]): string {
  const parts = alternatives.map((alt) =>
    alt.length === 1
      ? alt[0]!
      : alt.length === 2
        ? `both ${alt[0]} and ${alt[1]}`
        : `all of ${alt.join(', ')}`,
  );
  return parts.length <= 1
    ? parts.join('')
    : `${parts.slice(0, -1).join(', ')}, or ${parts[parts.length - 1]}`;
}

/**
 * Rule kind `require-any-of` (C4: user_data needs em, or hashed_maids, or both client_ip_address and
 * client_user_agent). `obj` is the object as accepted, after the warnings dropped what they dropped: the
 * message lists those dropped values, so the sender sees why an identifier that was sent does not count.
 */
export function requireAnyOf(
  o: EventProblems,
  p: string,
  i: number,
  obj: Readonly<Record<string, unknown>>,
  alternatives: readonly (readonly string[])[],
): void {
  for (const alt of alternatives) {
    let all = true;
    for (const f of alt) if (!present(obj[f])) all = false;
    if (all) return;
  }
  const path = pathOf(p, i, '', -1);
  const dropped: string[] = [];
  for (const alt of alternatives)
    for (const f of alt) {
      const fp = pathOf(p, i, f, -1);
      for (const w of o.warnings)
        if (w.path === fp || w.path.startsWith(`${fp}[`) || w.path.startsWith(`${fp}.`)) dropped.push(w.path);
    }
  report(o, 'missing_identifier', path, {
    path,
    alternatives: words(alternatives),
    dropped: dropped.length > 0 ? dropped.join(', ') : undefined,
  });
}
