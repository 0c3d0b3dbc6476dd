import { type EventProblems, pathOf, received, report } from './problems.js';

/**
 * Rule kind `ids-in-items` (C4: each content_ids entry appears in contents[].id). Returns `ids` when every
 * entry is carried by an item, else a copy without the others, each reported as
 * `content_id_not_in_contents` (the entry is dropped). Small lists compare directly; large ones use a Set.
 * Not run over entries that already failed (their error says what is wrong with them).
 */
export function idsInItems(
  o: EventProblems,
  p: string,
  i: number,
  idsName: string,
  itemsName: string,
  key: string,
  ids: readonly unknown[],
  items: readonly unknown[],
): readonly unknown[] {
  // Entries or item ids that failed their own checks (an integer id, say) already fail the event: a mismatch
  // between them would only repeat that, so the cross-check is for values that passed.
  if (o.errors.length > 0) {
    const idsPath = pathOf(p, i, idsName, -1);
    const itemsPath = pathOf(p, i, itemsName, -1);
    const itemKey = `].${key}`;
    const compared = (path: string) =>
      path === idsPath ||
      path === itemsPath ||
      path.startsWith(`${idsPath}[`) ||
      (path.startsWith(`${itemsPath}[`) && (path.endsWith(']') || path.endsWith(itemKey)));
    if (o.errors.some((e) => compared(e.path))) return ids;
  }
  let set: Set<unknown> | undefined;
  if (ids.length * items.length > 64) {
    set = new Set();
    for (const item of items)
      if (typeof item === 'object' && item !== null) set.add((item as Record<string, unknown>)[key]);
  }
  let kept: unknown[] | undefined;
  for (let j = 0; j < ids.length; j++) {
    const id = ids[j];
    let found = false;
    if (set !== undefined) found = set.has(id);
    else
      for (const item of items)
        if (typeof item === 'object' && item !== null && (item as Record<string, unknown>)[key] === id) {
          found = true;
          break;
        }
    if (found) {
      kept?.push(id);
      continue;
    }
    kept ??= ids.slice(0, j);
    const path = pathOf(p, i, idsName, j);
    report(o, 'content_id_not_in_contents', path, {
      path,
      received: received(id),
      items: pathOf(p, i, itemsName, -1),
      key,
    });
  }
  return kept ?? ids;
}
