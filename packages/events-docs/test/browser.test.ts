// The HTML reference in a real browser (Debian's Chromium via playwright-core, never a downloaded browser):
// served from docsRoot by a plain node:http server at /docs, as the mock server mounts it. Checks that the
// endpoint, the request-error table and the event-name table are visible, that Redoc renders the OpenAPI
// document, and that no request leaves the server. Saves test-artifacts/docs.png and api.png.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openapiJson, openapiYaml, resolveDocsFile } from '../src/index.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const artifacts = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
if (!hasChromium)
  console.warn(`[events-docs] browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`);

/** Serves /docs/* from docsRoot and /openapi.yaml, like the mock server does. */
function serveDocs(): Promise<Server> {
  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url === '/openapi.yaml') {
      res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8' }).end(openapiYaml);
      return;
    }
    if (url === '/docs') {
      res.writeHead(301, { location: '/docs/' }).end();
      return;
    }
    const file = url.startsWith('/docs/') ? resolveDocsFile(url.slice('/docs/'.length)) : undefined;
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': file.contentType }).end(readFileSync(file.path));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe.skipIf(!hasChromium)(
  `HTML reference in Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} not installed)`}`,
  () => {
    let server: Server;
    let browser: Browser;
    let base: string;
    const foreign: string[] = [];
    const failed: string[] = [];

    beforeAll(async () => {
      server = await serveDocs();
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      mkdirSync(artifacts, { recursive: true });
    }, 30_000);

    afterAll(async () => {
      await browser?.close();
      await new Promise((r) => server?.close(r));
    });

    async function open(path: string) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('request', (r) => {
        const u = r.url();
        if (!u.startsWith(base) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
      });
      page.on('response', (r) => {
        if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      });
      const res = await page.goto(`${base}${path}`);
      expect(res?.status()).toBe(200);
      return page;
    }

    it('shows the endpoint, the request errors and the event names', async () => {
      const page = await open('/docs/');
      await expect(page.locator('main h1').textContent()).resolves.toContain('Conversion Events API');
      expect(await page.locator('main').textContent()).toContain(
        'POST /v5/ad_accounts/{ad_account_id}/events',
      );
      await page.screenshot({ path: `${artifacts}docs.png`, fullPage: false });

      await page.click('nav.side >> text=Request errors');
      await page.waitForURL(/request-errors\.html$/);
      const errors = page.locator('table', { has: page.locator('th', { hasText: 'How to fix' }) });
      await errors.waitFor({ state: 'visible' });
      const rows = await errors.locator('tbody tr').allInnerTexts();
      expect(rows.length).toBeGreaterThanOrEqual(8);
      expect(rows[0]).toMatch(/^1\s+413\s+4196/);
      expect(rows.some((r) => /429\s+8\s+This request exceeded a rate limit/.test(r))).toBe(true);

      await page.click('nav.side >> text=Event names');
      const names = page.locator('table', { has: page.locator('th', { hasText: 'Name in the API' }) });
      await names.waitFor({ state: 'visible' });
      const text = await names.textContent();
      for (const n of ['add_payment_info', 'checkout', 'subscribe', 'watch_video']) expect(text).toContain(n);
      const standard = (
        JSON.parse(openapiJson) as { components: { schemas: { StandardEventName: { enum: string[] } } } }
      ).components.schemas.StandardEventName.enum;
      expect(await names.locator('tbody tr').count()).toBe(standard.length);
      await page.close();
    }, 30_000);

    it('renders the OpenAPI document with the bundled Redoc', async () => {
      const page = await open('/docs/api.html');
      await page.waitForSelector('body[data-rendered]', { timeout: 20_000 });
      expect(await page.getAttribute('body', 'data-rendered')).toBe('ok');
      await page.locator('#redoc h2', { hasText: 'Send conversion events' }).waitFor({ state: 'visible' });
      expect(await page.locator('#redoc').textContent()).toContain('/v5/ad_accounts/{ad_account_id}/events');
      await page.screenshot({ path: `${artifacts}api.png`, fullPage: false });
      await page.close();
    }, 45_000);

    it('loaded nothing from another host and every request succeeded', () => {
      expect(foreign).toEqual([]);
      expect(failed).toEqual([]);
    });
  },
);
