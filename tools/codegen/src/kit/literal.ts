/** Prints a JSON-like value as a TypeScript literal: stable key order as given, single quotes, bare keys. */
export function literal(value: unknown, indent = ''): string {
  const next = `${indent}  `;
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((v) => literal(v, next));
    const oneLine = `[${items.join(', ')}]`;
    if (oneLine.length <= 100 && !oneLine.includes('\n')) return oneLine;
    return `[\n${items.map((i) => `${next}${i},`).join('\n')}\n${indent}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(([k, v]) => `${key(k)}: ${literal(v, next)}`);
    const oneLine = `{ ${items.join(', ')} }`;
    if (oneLine.length <= 100 && !oneLine.includes('\n')) return oneLine;
    return `{\n${items.map((i) => `${next}${i},`).join('\n')}\n${indent}}`;
  }
  throw new Error(`cannot print ${typeof value}`);
}

export function quote(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r')}'`;
}

function key(k: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : quote(k);
}

/** `ActionSource` -> `ACTION_SOURCES`, `EventStatus` -> `EVENT_STATUSES`, `OsFamily` -> `OS_FAMILIES`. */
export function constantName(typeName: string): string {
  const snake = typeName.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
  if (/[^AEIOU]Y$/.test(snake)) return `${snake.slice(0, -1)}IES`;
  if (/(S|X|SH|CH)$/.test(snake)) return `${snake}ES`;
  return `${snake}S`;
}

/** Turns a description into JSDoc text safe inside a comment. */
export function doc(text: string): string {
  return text.replace(/\*\//g, '*\\/').trim();
}
