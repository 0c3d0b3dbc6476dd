type Obj = Record<string, unknown>;

const PREFIX = '#/components/';

/** Every `$ref` under a value, as `kind/name` of components (other references are not followed). */
function refsOf(value: unknown, out: Set<string>): void {
  if (Array.isArray(value)) for (const v of value) refsOf(v, out);
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(PREFIX)) out.add(v.slice(PREFIX.length));
      else refsOf(v, out);
    }
}

/**
 * The document served at /openapi.yaml and rendered at /docs: the resolved spec without the components no
 * operation reaches (issue 23, Redocly's `no-unused-components`). Some are unused only once the spec is
 * resolved (a shared response copied into the operations that add headers to it, C32); others name
 * config-file values (access tiers, token kinds) that the generator turns into types but the API never
 * carries. The generator's own IR keeps them all.
 */
export function publishedOpenApi(doc: Obj): Obj {
  const components = (doc.components ?? {}) as Record<string, Obj>;
  const reached = new Set<string>();
  const queue = new Set<string>();
  refsOf({ ...doc, components: undefined }, queue);
  // securitySchemes are reached by name from `security`, never by $ref.
  for (const name of Object.keys(components.securitySchemes ?? {})) queue.add(`securitySchemes/${name}`);
  while (queue.size) {
    const [next] = queue;
    queue.delete(next as string);
    if (reached.has(next as string)) continue;
    reached.add(next as string);
    const [kind, name] = (next as string).split('/') as [string, string];
    const found = new Set<string>();
    refsOf(components[kind]?.[name], found);
    for (const f of found) if (!reached.has(f)) queue.add(f);
  }
  const kept = Object.fromEntries(
    Object.entries(components).map(([kind, entries]) => [
      kind,
      Object.fromEntries(Object.entries(entries).filter(([name]) => reached.has(`${kind}/${name}`))),
    ]),
  );
  return { ...doc, components: kept };
}
