// The published OpenAPI document tells the truth: every documented response example names the request that
// draws it (`x-request`); each one is sent to the real server, whose answer must be the documented status,
// body and required headers. The document is the one the server serves, with `servers` set to its origin.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { ManualClock } from '../src/core/clock.js';
import { loadDocsSource } from '../src/routes/docs.js';
import { A, T, testConfig } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

type Obj = Record<string, unknown>;

interface XRequest {
  operationId: string;
  token: 'conversion' | 'other_conversion' | 'oauth' | 'admin' | 'none';
  example?: string;
  params?: Record<string, string>;
  contentType?: string;
}

interface Documented {
  where: string;
  method: string;
  path: string;
  request: XRequest;
  body?: unknown;
  status: number;
  value: unknown;
  requiredHeaders: string[];
}

const TOKENS = {
  conversion: T.convA,
  other_conversion: T.convB,
  oauth: T.oauthStd,
  admin: T.admin,
  none: undefined,
} as const;

let h: Harness;
let doc: Obj;
let served: string;
/** The path parameter examples of the document; the test config's first ad account takes that id. */
let accountId: string;

function deref(node: unknown): Obj {
  let n = node as Obj;
  while (typeof n?.$ref === 'string') {
    let v: unknown = doc;
    for (const k of (n.$ref as string).replace('#/', '').split('/')) v = (v as Obj)[k];
    n = v as Obj;
  }
  return n;
}

function operations(): { id: string; method: string; path: string; op: Obj }[] {
  return Object.entries(doc.paths as Record<string, Obj>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      id: (op as Obj).operationId as string,
      method: method.toUpperCase(),
      path,
      op: op as Obj,
    })),
  );
}

function documented(): Documented[] {
  const ops = operations();
  const out: Documented[] = [];
  const seen = new Set<string>();
  for (const { id, op } of ops)
    for (const [status, r] of Object.entries(op.responses as Obj)) {
      const resp = deref(r);
      const examples = ((resp.content as Obj | undefined)?.['application/json'] as Obj | undefined)
        ?.examples as Record<string, Obj> | undefined;
      for (const [name, ex] of Object.entries(examples ?? {})) {
        const request = ex['x-request'] as XRequest | undefined;
        if (request === undefined) throw new Error(`${id} ${status} example ${name} has no x-request`);
        const key = JSON.stringify([request, status, ex.value]);
        if (seen.has(key)) continue;
        seen.add(key);
        const target = ops.find((o) => o.id === request.operationId);
        if (!target) throw new Error(`example ${name}: no operation ${request.operationId}`);
        const bodyExamples = ((target.op.requestBody as Obj | undefined)?.content as Obj | undefined)?.[
          'application/json'
        ] as Obj | undefined;
        const requestExamples = (bodyExamples?.examples ?? {}) as Record<string, Obj>;
        if (request.example !== undefined && requestExamples[request.example] === undefined)
          throw new Error(
            `example ${name}: ${request.operationId} has no request example ${request.example}`,
          );
        const body = request.example === undefined ? undefined : requestExamples[request.example]?.value;
        const params = Object.fromEntries(
          ((target.op.parameters as unknown[]) ?? []).map((p0) => {
            const p = deref(p0);
            return [p.name as string, String(p.example ?? '')];
          }),
        );
        const path = target.path.replace(/\{(\w+)\}/g, (_, k: string) =>
          encodeURIComponent(request.params?.[k] ?? params[k] ?? ''),
        );
        // Required headers, and the rate-limit headers wherever a limit applies to the caller (an OAuth
        // token; a conversion token's live events have none, C9).
        const requiredHeaders = Object.entries((resp.headers ?? {}) as Obj)
          .filter(
            ([n, hd]) =>
              deref(hd).required === true || (n.startsWith('x-ratelimit-') && request.token === 'oauth'),
          )
          .map(([n]) => n);
        out.push({
          where: `${request.operationId} -> ${status} ${name}`,
          method: target.method,
          path,
          request,
          ...(body !== undefined ? { body } : {}),
          status: Number(status),
          value: ex.value,
          requiredHeaders,
        });
      }
    }
  return out;
}

beforeAll(async () => {
  const docs = await loadDocsSource();
  if (!docs.openapiYaml) throw new Error('@org/events-docs has no openapi.yaml; run pnpm gen');
  const published = parse(docs.openapiYaml) as Obj;
  accountId = String(
    (published.components as { parameters: { AdAccountId: { example: unknown } } }).parameters.AdAccountId
      .example,
  );
  // The request examples are dated: the clock stands one minute after the example event_time.
  const event = (
    (published.paths as Obj)['/v5/ad_accounts/{ad_account_id}/events'] as {
      post: {
        requestBody: {
          content: {
            'application/json': { examples: { processed: { value: { data: { event_time: number }[] } } } };
          };
        };
      };
    }
  ).post.requestBody.content['application/json'].examples.processed.value.data[0]!;
  const config = JSON.parse(JSON.stringify(testConfig()).replaceAll(A, accountId));
  h = await startHarness({ config, docs, clock: new ManualClock((event.event_time + 60) * 1000) });
  const r = await h.call('GET', '/openapi.yaml');
  served = r.text;
  doc = parse(served) as Obj;
});
afterAll(() => h.close());

describe('the served OpenAPI document', () => {
  test('names the origin it is served from, as YAML and JSON, and no unserved x-data path', async () => {
    expect(doc.servers).toEqual([{ url: h.url, description: 'Local mock server (events-mock-server)' }]);
    expect(doc['x-data']).toBeUndefined();
    for (const path of ['/openapi.json', '/docs/openapi.json'])
      expect((await h.call('GET', path)).body, path).toEqual(doc);
    expect(parse((await h.call('GET', '/docs/openapi.yaml')).text)).toEqual(doc);
  });

  test('every operation documents a default response and every response the request id', () => {
    for (const { id, op } of operations()) {
      const responses = op.responses as Obj;
      expect(Object.keys(responses), id).toContain('default');
      for (const [status, r] of Object.entries(responses))
        expect(Object.keys(deref(r).headers ?? {}), `${id} ${status}`).toContain('x-request-id');
    }
  });

  test('documents at least one request example per status class the server answers', () => {
    const statuses = documented().map((d) => d.status);
    expect(new Set(statuses)).toEqual(new Set([200, 201, 400, 401, 403, 404, 415]));
  });

  test('each documented example is what the server answers to its request', async () => {
    for (const d of documented()) {
      const r = await h.call(d.method, d.path, {
        ...(TOKENS[d.request.token] !== undefined ? { token: TOKENS[d.request.token] } : {}),
        ...(d.body !== undefined ? { body: d.body } : {}),
        ...(d.request.contentType !== undefined ? { contentType: d.request.contentType } : {}),
      });
      expect({ status: r.status, body: r.body }, d.where).toEqual({ status: d.status, body: d.value });
      for (const name of d.requiredHeaders) expect(r.headers.get(name), `${d.where} ${name}`).not.toBeNull();
    }
  });
});
