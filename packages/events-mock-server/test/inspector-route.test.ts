// The inspector page as the server serves it (issue 13, C68): index.html revalidated, hashed assets cached
// for a year with their content type, the page's security headers, 404 in the service's format for unknown
// files, never a 5xx for any path, and a 503 that says to build when the page is not built. The served
// folder is a temporary one holding known files, so the test does not depend on a build.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { rawExchange } from './support/raw-http.js';
import { type Harness, startHarness } from './support/server.js';

const dir = mkdtempSync(join(tmpdir(), 'ems-inspector-'));
const site = join(dir, 'site');
let h: Harness;
let bare: Harness;

beforeAll(async () => {
  mkdirSync(join(site, 'assets'), { recursive: true });
  writeFileSync(join(site, 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(join(site, 'assets', 'index-DHeIkSLS.js'), 'console.log(1)');
  writeFileSync(join(site, 'assets', 'index-BxPJQqjj.css'), 'body{}');
  writeFileSync(join(site, 'assets', 'a b.txt'), 'spaced');
  mkdirSync(join(dir, 'empty'));
  h = await startHarness({ inspector: { root: site } });
  bare = await startHarness({ inspector: { root: join(dir, 'empty') } });
});
afterAll(async () => {
  await h.close();
  await bare.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('/inspector', () => {
  test('/inspector redirects to the folder, whose index.html is revalidated on every load', async () => {
    const r = await fetch(`${h.url}/inspector`, { redirect: 'manual' });
    expect([301, 302]).toContain(r.status);
    expect(r.headers.get('location')).toBe('/inspector/');
    const page = await h.call('GET', '/inspector/');
    expect(page.status).toBe(200);
    expect(page.text).toBe('<!doctype html><div id="app"></div>');
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await h.call('GET', '/inspector/index.html')).text).toBe(page.text);
  });

  test('hashed assets: their content type and a year of immutable caching; other files are revalidated', async () => {
    const js = await h.call('GET', '/inspector/assets/index-DHeIkSLS.js');
    expect(js.status).toBe(200);
    expect(js.text).toBe('console.log(1)');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const css = await h.call('GET', '/inspector/assets/index-BxPJQqjj.css');
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const spaced = await h.call('GET', '/inspector/assets/a%20b.txt');
    expect(spaced.text).toBe('spaced');
    expect(spaced.headers.get('cache-control')).toBe('no-cache');
  });

  test('an unknown file, a folder or a path out of the folder: 404 in the service format', async () => {
    for (const [path, name] of [
      ['/inspector/assets/nope.js', '"assets/nope.js"'],
      ['/inspector/assets', '"assets"'],
      ['/inspector/%25', '"%"'],
      ['/inspector/..%2f..%2fpackage.json', '"../../package.json"'],
    ] as const) {
      const r = await h.call('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.body).toEqual({
        code: 2,
        message: 'Not found.',
        details: [{ path: 'url', problem: `the inspector page has no file ${name}` }],
      });
    }
  });

  test('any path under /inspector/ answers 200, 3xx or 404, never a 5xx (fast-check)', async () => {
    const segment = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }).map((s) => encodeURIComponent(s)),
      fc.constantFrom('%', '%25', '%zz', '%00', '..', '%2e%2e', '%2f', '%c0%af', '%ff', '.', '', 'assets'),
      fc.stringMatching(/^[%0-9a-fA-F./\\]{0,12}$/),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), async (parts) => {
        const r = await rawExchange(
          h.server.port,
          `GET /inspector/${parts.join('/')} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        expect(r.status).not.toBeNull();
        expect(r.status as number).toBeLessThan(500);
        if ((r.status as number) >= 400) expect(r.body).toMatchObject({ code: expect.any(Number) });
      }),
      { numRuns: 200 },
    );
  });

  test('not built: 503 saying to build, for the page and for its assets', async () => {
    for (const path of ['/inspector/', '/inspector/assets/index-DHeIkSLS.js']) {
      const r = await bare.call('GET', path);
      expect(r.status, path).toBe(503);
      expect(r.body).toEqual({
        code: 4197,
        message: 'The service is temporarily unavailable; nothing of this request was stored.',
        details: [
          {
            path: '/inspector',
            problem: 'the inspector page is not built; run pnpm build, then start the server again',
          },
        ],
      });
    }
  });
});
