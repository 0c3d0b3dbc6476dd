// Issue 21: a client built from Pinterest's own OpenAPI document (fixtures/pinterest-openapi, 5.23) works
// against the server unchanged: its base URL (`.../v5`), paths, parameters and bodies are Pinterest's, and
// every answer is valid against Pinterest's response schemas (C3, C89, C92).
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { A, event, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

type Obj = Record<string, unknown>;
const doc = JSON.parse(
  readFileSync(
    new URL('../../../fixtures/pinterest-openapi/v5.23-conversions.json', import.meta.url),
    'utf8',
  ),
) as { servers: { url: string }[]; paths: Record<string, Record<string, Obj>>; components: Obj };

/** OpenAPI 3.0 schema -> JSON Schema for ajv: `nullable` becomes a null type, refs point at definitions. */
function jsonSchema(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonSchema);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Obj;
  const out: Obj = {};
  for (const [k, x] of Object.entries(o)) {
    if (k === 'example' || k === 'nullable' || k.startsWith('x-')) continue;
    if (k === '$ref') out.$ref = String(x).replace('#/components/schemas/', '#/definitions/');
    else out[k] = jsonSchema(x);
  }
  if (o.nullable === true && typeof o.type === 'string') out.type = [o.type, 'null'];
  if (o.nullable === true && Array.isArray(o.enum) && !o.enum.includes(null)) out.enum = [...o.enum, null];
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
const definitions = jsonSchema((doc.components as { schemas: Obj }).schemas);
const compiled = new Map<string, ReturnType<Ajv['compile']>>();
/** Pinterest's schema of an operation's request body, or of its answer with `status` (else `default`). */
function schemaOf(path: string, method: string, where: 'request' | string) {
  const op = doc.paths[path]![method]!;
  const holder =
    where === 'request'
      ? (op.requestBody as Obj)
      : (((op.responses as Obj)[where] ?? (op.responses as Obj).default) as Obj);
  const key = `${method} ${path} ${where}`;
  let v = compiled.get(key);
  if (!v) {
    const schema = ((holder.content as Obj)['application/json'] as Obj).schema;
    v = ajv.compile({ ...(jsonSchema(schema) as Obj), definitions });
    compiled.set(key, v);
  }
  return v;
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/**
 * What a generated client does: the document's server URL with this server's origin, the path template
 * filled in, the query parameters it declares, a bearer token, a JSON body checked against the request
 * schema; the answer is returned with the schema check of its status.
 */
async function call(path: string, method: string, token: string, body?: unknown, query: Obj = {}) {
  const base = new URL(doc.servers[0]!.url).pathname; // "/v5"
  const declared = ((doc.paths[path]![method]!.parameters ?? []) as Obj[]).map((p) => p.name);
  for (const k of Object.keys(query)) expect(declared).toContain(k);
  if (body !== undefined) {
    const valid = schemaOf(path, method, 'request');
    expect(valid(body), JSON.stringify(valid.errors)).toBe(true);
  }
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const url = `${h.url}${base}${path.replace('{ad_account_id}', A)}${qs ? `?${qs}` : ''}`;
  const res = await fetch(url, {
    method: method.toUpperCase(),
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = (await res.json()) as Obj;
  const valid = schemaOf(path, method, String(res.status));
  expect(valid(answer), JSON.stringify(valid.errors)).toBe(true);
  return { status: res.status, headers: res.headers, body: answer };
}

const EVENTS = '/ad_accounts/{ad_account_id}/events';
const ADE = '/ad_accounts/{ad_account_id}/advertiser_defined_events';

describe("a client of Pinterest's OpenAPI 5.23", () => {
  test('events/create, live and with test=true, with a conversion token and an OAuth token', async () => {
    const body = { data: [event(h.nowS(), { event_id: 'pin-client-1' })] };
    const live = await call(EVENTS, 'post', T.convA, body);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({
      num_events_received: 1,
      num_events_processed: 1,
      events: [{ status: 'processed', error_message: null, warning_message: null }],
    });
    // C89: Pinterest's headers, the rate limit named as Pinterest names it.
    expect(live.headers.get('x-pinterest-rid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(live.headers.get('x-ratelimit-limit')).toBe(
      '120000, 120000;w=60;name="ads_conversions_ad_account_id"',
    );
    const tested = await call(EVENTS, 'post', T.oauthStd, body, { test: true });
    expect(tested.status).toBe(200);
    expect(tested.headers.get('x-ratelimit-limit')).toBe('10, 10;w=1;name="test_requests"');
  });

  test('the failures it meets are its own Error shape', async () => {
    const body = { data: [event(h.nowS())] };
    const unauthorized = await call(EVENTS, 'post', 'not-a-token', body);
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.body).toMatchObject({ code: 2, message: 'Authentication failed.' });
    const failed = await call(EVENTS, 'post', T.convA, {
      data: [event(h.nowS(), { event_name: 'add_to_cart', custom_data: { currency: 'USD', value: '0' } })],
    });
    expect(failed.status).toBe(200);
    expect(failed.body.num_events_processed).toBe(0);
  });

  test("advertiser_defined_events/get lists what was registered, in Pinterest's shape", async () => {
    await h.call('POST', `/v5${ADE.replace('{ad_account_id}', A)}`, {
      token: T.oauthStd,
      body: { items: [{ name: 'pin_client_signup', mapped_conversion_type: 'SIGNUP' }] },
    });
    const got = await call(ADE, 'get', T.oauthReadOnly);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ items: [{ name: 'pin_client_signup', mapped_conversion_type: 'SIGNUP' }] });
  });
});
