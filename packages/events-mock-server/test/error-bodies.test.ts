// C109: the answers the server once wrote by hand (the 500 of an unexpected failure, the docs' 404s) are
// rows of the outcome table, byte for byte what they were.
import { afterEach, describe, expect, test } from 'vitest';
import { type Harness, startHarness } from './support/server.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('error bodies from the outcome table', () => {
  test('docs not built: 404 not_found naming the path asked for', async () => {
    h = await startHarness({ docs: {} });
    const site = await h.call('GET', '/docs/index.html');
    expect(site.status).toBe(404);
    expect(site.body).toEqual({
      code: 2,
      message: 'Not found.',
      details: [{ path: '/docs', problem: 'the docs are not built; run pnpm build' }],
    });
    const doc = await h.call('GET', '/openapi.json');
    expect(doc.status).toBe(404);
    expect(doc.body.details).toEqual([
      { path: '/openapi.json', problem: 'the docs are not built; run pnpm build' },
    ]);
  });

  test('no route: 404 not_found with the endpoint_unknown problem', async () => {
    h = await startHarness();
    const r = await h.call('DELETE', '/v5/nowhere?x=1');
    expect(r.status).toBe(404);
    expect(r.text).toBe(
      '{"code":2,"message":"Not found.","details":[{"path":"url","problem":"no endpoint DELETE /v5/nowhere"}]}',
    );
  });

  test('an unexpected failure: 500 internal_error, nothing of the failure in the body', async () => {
    // A published document that is no YAML fails where nothing expects it: a defect, not a refusal.
    h = await startHarness({ docs: { openapiYaml: 'servers: [' } });
    const r = await h.call('GET', '/openapi.json');
    expect(r.status).toBe(500);
    expect(r.text).toBe('{"code":1,"message":"Internal error."}');
  });
});
