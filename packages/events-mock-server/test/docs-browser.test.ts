// The reference docs as the server serves them (@org/events-docs; the test lives here because the server
// depends on the docs package, not the other way round). Starts the server, opens /docs/ in Debian's
// Chromium (playwright-core, never a downloaded browser) and checks that the endpoint, the request-error
// table and the event-name table are visible, that /docs/api.html renders the OpenAPI document with the
// bundled Redoc, that /openapi.yaml is served, and that the pages load nothing from another host.
// Saves test-artifacts/docs.png and test-artifacts/api.png.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openapiJson, openapiYaml } from '@org/events-docs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type RunningServer, startServer } from '../src/index.js';
import { CHROMIUM, hasChromium, launchChromium } from './support/chromium.js';

const artifacts = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
if (!hasChromium)
  console.warn(
    `[events-mock-server] docs browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`,
  );

describe.skipIf(!hasChromium)(
  `docs served by the server, in Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} not installed)`}`,
  () => {
    let server: RunningServer;
    let browser: Browser;
    const foreign: string[] = [];
    const failed: string[] = [];

    beforeAll(async () => {
      server = await startServer({ port: 0, db: ':memory:' });
      browser = await launchChromium();
      mkdirSync(artifacts, { recursive: true });
    }, 30_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    async function open(path: string) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('request', (r) => {
        const u = r.url();
        if (!u.startsWith(server.url) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
      });
      page.on('response', (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      const res = await page.goto(`${server.url}${path}`);
      expect(res?.status(), path).toBe(200);
      return page;
    }

    it('serves /openapi.yaml and redirects /docs to /docs/', async () => {
      const yaml = await fetch(`${server.url}/openapi.yaml`);
      expect(yaml.status).toBe(200);
      expect(yaml.headers.get('content-type')).toContain('yaml');
      // The published document, with servers naming the origin it was fetched from.
      const published = parse(openapiYaml) as { servers: { url: string }[] };
      expect(parse(await yaml.text())).toEqual({
        ...published,
        servers: [{ ...published.servers[0], url: server.url }],
      });
      const bare = await fetch(`${server.url}/docs`, { redirect: 'manual' });
      expect([301, 302, 308]).toContain(bare.status);
      expect(bare.headers.get('location')).toBe('/docs/');
    });

    it('/docs/ shows the endpoint, the request-error table and the event-name table', async () => {
      const page = await open('/docs');
      expect(page.url()).toBe(`${server.url}/docs/`);
      expect(await page.locator('main').textContent()).toContain(
        'POST /v5/ad_accounts/{ad_account_id}/events',
      );
      await page.screenshot({ path: `${artifacts}docs.png`, fullPage: false });

      await page.click('nav.side >> text=Request errors');
      await page.waitForURL(/\/docs\/request-errors\.html$/);
      const errors = page.locator('table', { has: page.locator('th', { hasText: 'How to fix' }) });
      await errors.waitFor({ state: 'visible' });
      const rows = await errors.locator('tbody tr').allInnerTexts();
      expect(rows[0]).toMatch(/^1\s+413\s+4196/);
      expect(rows.some((r) => /429\s+8\s+This request exceeded a rate limit/.test(r))).toBe(true);

      await page.click('nav.side >> text=Event names');
      await page.waitForURL(/\/docs\/event-names\.html$/);
      const names = page.locator('table', { has: page.locator('th', { hasText: 'Name in the API' }) });
      await names.waitFor({ state: 'visible' });
      const standard = (
        JSON.parse(openapiJson) as { components: { schemas: { StandardEventName: { enum: string[] } } } }
      ).components.schemas.StandardEventName.enum;
      expect(await names.locator('tbody tr').count()).toBe(standard.length);
      const text = await names.textContent();
      for (const n of standard) expect(text).toContain(n);
      await page.close();
    }, 30_000);

    it('/docs/api.html renders the OpenAPI document with the bundled Redoc', async () => {
      const page = await open('/docs/api.html');
      await page.waitForSelector('body[data-rendered]', { timeout: 20_000 });
      expect(await page.getAttribute('body', 'data-rendered')).toBe('ok');
      await page.locator('#redoc h2', { hasText: 'Send conversion events' }).waitFor({ state: 'visible' });
      expect(await page.locator('#redoc').textContent()).toContain('/v5/ad_accounts/{ad_account_id}/events');
      await page.screenshot({ path: `${artifacts}api.png`, fullPage: false });
      await page.close();
    }, 45_000);

    it('the pages loaded nothing from another host and every request succeeded', () => {
      expect(foreign).toEqual([]);
      expect(failed).toEqual([]);
    });
  },
);
