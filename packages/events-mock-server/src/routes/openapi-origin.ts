import { parse, stringify } from 'yaml';

// The origin a client reached this server at; the CSRF check of C71 compares Origin with it too.
export { originOf } from '../http/origin.js';

const cache = new Map<string, { yaml: string; json: string }>();

/**
 * The published OpenAPI document with `servers` set to the origin it is served from, so "try it" and
 * generated clients reach this server rather than the spec's example origin. Without an origin the
 * document is served as published (C33). A few origins are kept rendered (one per name the server is reached by).
 */
export function openApiServedAt(
  yamlText: string,
  origin: string | undefined,
): { yaml: string; json: string } {
  const key = origin ?? '';
  const hit = cache.get(key);
  if (hit) return hit;
  const doc = parse(yamlText) as Record<string, unknown>;
  if (origin !== undefined) {
    const first = ((doc.servers as { description?: string }[] | undefined) ?? [])[0];
    doc.servers = [{ url: origin, ...(first?.description ? { description: first.description } : {}) }];
  }
  const out = {
    yaml: origin === undefined ? yamlText : stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 }),
    json: `${JSON.stringify(doc, null, 2)}\n`,
  };
  if (cache.size >= 64) cache.clear();
  cache.set(key, out);
  return out;
}
