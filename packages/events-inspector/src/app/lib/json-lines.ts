// A pretty-printed JSON value as lines that know the path they print, so the detail page can mark the fields
// an event's messages name. Paths are written as the service's messages write them: `user_data.em[0]`,
// `custom_data.contents[1].id`, `event_name` (relative to the event).

export interface JsonLine {
  /** Path of the value this line opens, prints or closes; '' for the root. */
  path: string;
  /** Nesting depth (two spaces each). */
  depth: number;
  /** The member name printed before the value, if any (already JSON-quoted). */
  key: string | null;
  /** What the line prints after the key: a scalar, `{`, `[`, `}`, `]`, `{}` or `[]`. */
  text: string;
  /** Whether a comma follows. */
  comma: boolean;
  /** Whether the path is named by, or lies inside, a highlighted path. */
  highlighted: boolean;
  /** The highlighted path this line answers to (for messages beside it), on its first line only. */
  anchor: string | null;
}

export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  return parent ? `${parent}.${key}` : key;
}

/** The highlighted path that covers `path` (itself or an ancestor), the longest if several do. */
export function coveringPath(path: string, highlight: readonly string[]): string | null {
  let best: string | null = null;
  for (const h of highlight) {
    const covers =
      path === h || (h !== '' && (path.startsWith(`${h}.`) || path.startsWith(`${h}[`))) || h === '';
    if (covers && (best === null || h.length > best.length)) best = h;
  }
  return best;
}

/** The lines of `JSON.stringify(value, null, 2)`, each with the path it prints and whether it is marked. */
export function jsonLines(value: unknown, highlight: readonly string[] = []): JsonLine[] {
  const lines: JsonLine[] = [];
  const anchored = new Set<string>();
  const push = (path: string, depth: number, key: string | null, text: string, comma: boolean) => {
    const cover = coveringPath(path, highlight);
    const anchor = cover !== null && cover === path && !anchored.has(path) ? path : null;
    if (anchor !== null) anchored.add(anchor);
    lines.push({ path, depth, key, text, comma, highlighted: cover !== null, anchor });
  };
  const walk = (v: unknown, path: string, depth: number, key: string | null, comma: boolean) => {
    if (Array.isArray(v)) {
      if (v.length === 0) return push(path, depth, key, '[]', comma);
      push(path, depth, key, '[', false);
      v.forEach((item, i) => {
        walk(item, childPath(path, i), depth + 1, null, i < v.length - 1);
      });
      return push(path, depth, null, ']', comma);
    }
    if (v !== null && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) return push(path, depth, key, '{}', comma);
      push(path, depth, key, '{', false);
      entries.forEach(([k, item], i) => {
        walk(item, childPath(path, k), depth + 1, JSON.stringify(k), i < entries.length - 1);
      });
      return push(path, depth, null, '}', comma);
    }
    // undefined has no JSON form; it cannot come from a parsed body, but print it rather than drop a line.
    push(path, depth, key, v === undefined ? 'undefined' : JSON.stringify(v), comma);
  };
  walk(value, '', 0, null, false);
  return lines;
}

/** The highlighted paths that print no line: fields a message names as missing. */
export function absentPaths(lines: readonly JsonLine[], highlight: readonly string[]): string[] {
  const printed = new Set(lines.map((l) => l.path));
  return highlight.filter((h) => !printed.has(h));
}
