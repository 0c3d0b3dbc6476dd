import { Reader } from '../load/reader.js';

type Obj = Record<string, unknown>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

interface EveryHeader {
  name: string;
  ref: string;
  scope: 'all' | 'rate-limited';
  except: string[];
}

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const isRef = (v: unknown): v is { $ref: string } =>
  typeof v === 'object' && v !== null && typeof (v as Obj).$ref === 'string';

/**
 * Completes the responses of the resolved document with the headers the server sends on every response
 * (components.headers with `x-every-response`), so the published document says what the server does: the
 * request id on every response of every operation, the rate-limit headers on every status of a rate-limited
 * operation except those in `x-except`. A response shared through components.responses is copied into the
 * operation when only that operation's responses carry a header. Also checks that each response lists a
 * header under its component's `x-name`, and drops `x-data` (file paths of the spec folder, not served). C32.
 */
export function completeResponses(file: string, doc: Obj): void {
  const r = new Reader(file, doc);
  const components = (doc.components ?? {}) as Obj;
  const headerDefs = (components.headers ?? {}) as Record<string, Obj>;
  const every: EveryHeader[] = [];
  const nameOf = new Map<string, string>();
  for (const [key, h] of Object.entries(headerDefs)) {
    const at = r.at('components').at('headers').at(key);
    const name = at.at('x-name').string();
    nameOf.set(`#/components/headers/${key}`, name);
    if (h['x-every-response'] === undefined) continue;
    every.push({
      name,
      ref: `#/components/headers/${key}`,
      scope: at.at('x-every-response').oneOf(['all', 'rate-limited'] as const),
      except: at.at('x-except').present ? at.at('x-except').strings() : [],
    });
  }
  const shared = (components.responses ?? {}) as Record<string, Obj>;
  const addHeaders = (resp: Obj, status: string, limited: boolean, where: Reader): Obj | undefined => {
    const headers = (resp.headers ?? {}) as Obj;
    for (const [name, h] of Object.entries(headers))
      if (isRef(h) && nameOf.has(h.$ref) && nameOf.get(h.$ref) !== name)
        where
          .at('headers')
          .at(name)
          .fail('header-name-mismatch', { name, xName: String(nameOf.get(h.$ref)) });
    const missing = every.filter(
      (e) => (e.scope === 'all' || limited) && !e.except.includes(status) && headers[e.name] === undefined,
    );
    if (!missing.length) return undefined;
    return {
      ...resp,
      headers: { ...headers, ...Object.fromEntries(missing.map((e) => [e.name, { $ref: e.ref }])) },
    };
  };
  for (const [key, resp] of Object.entries(shared)) {
    if (!isObject(resp)) continue;
    const done = addHeaders(resp, '', false, r.at('components').at('responses').at(key));
    if (done) shared[key] = done;
  }
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Obj>))
    for (const method of METHODS) {
      const op = item?.[method] as Obj | undefined;
      // A malformed operation is left as it is: validating the document names the problem.
      if (!isObject(op) || !isObject(op.responses)) continue;
      const limited = op['x-ratelimit-category'] !== undefined;
      const responses = op.responses;
      for (const [status, resp0] of Object.entries(responses)) {
        const where = r.at('paths').at(path).at(method).at('responses').at(status);
        const resp = isRef(resp0) ? shared[resp0.$ref.replace('#/components/responses/', '')] : resp0;
        if (!isObject(resp)) continue;
        const done = addHeaders(resp, status, limited, where);
        if (done) responses[status] = isRef(resp0) ? structuredClone(done) : done;
      }
    }
  delete doc['x-data'];
}
