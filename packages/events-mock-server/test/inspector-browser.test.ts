// The inspector page in Debian's Chromium (playwright-core, never a downloaded browser) against the real
// server started in process on SQLite (issue 13 point 5, C68): sign in with the admin token, send a valid and
// a bad event with fetch, watch both requests appear live, open the failed event and find its message next
// to its highlighted field, filter, export, and the faults list (whose changes carry the session's CSRF token
// and the page's origin, C71). The token never appears in a URL the page
// asks for, and the page loads nothing from another host. Screenshots go to test-artifacts/inspector/.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspectorBuilt } from '@org/events-inspector';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CSRF_HEADER } from '../src/auth/sessions.js';
import { type RunningServer, startServer } from '../src/index.js';
import { CHROMIUM, hasChromium, launchChromium } from './support/chromium.js';
import { event } from './support/fixtures.js';

const artifacts = fileURLToPath(new URL('../test-artifacts/inspector/', import.meta.url));
if (!hasChromium)
  console.warn(
    `[events-mock-server] inspector browser test skipped: ${CHROMIUM} is not installed (apt-get install chromium)`,
  );

describe.skipIf(!hasChromium)(
  `the inspector in Chromium${hasChromium ? '' : ` (skipped: ${CHROMIUM} not installed)`}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'ems-inspector-browser-'));
    let server: RunningServer;
    let browser: Browser;
    let page: Page;
    let admin: string;
    let account: string;
    let conversion: string;
    const urls: string[] = [];
    const pageErrors: string[] = [];
    const ids: { good?: string; bad?: string } = {};
    const changes: Promise<{ call: string; headers: Record<string, string> }>[] = [];

    const send = async (events: unknown[]) => {
      const r = await fetch(`${server.url}/v5/ad_accounts/${account}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${conversion}`, 'content-type': 'application/json' },
        body: JSON.stringify({ data: events }),
      });
      return { status: r.status, id: r.headers.get('x-request-id') ?? '', body: await r.json() };
    };

    beforeAll(async () => {
      // The page must have been built (turbo builds dependencies before tests; by hand: pnpm build).
      expect(inspectorBuilt(), 'the inspector is built (run pnpm build)').toBe(true);
      server = await startServer({ port: 0, db: join(dir, 'events.db') });
      admin = server.demo!.adminToken;
      account = server.demo!.adAccountId;
      conversion = server.demo!.conversionToken;
      browser = await launchChromium();
      const context = await browser.newContext({
        viewport: { width: 1360, height: 900 },
        acceptDownloads: true,
      });
      page = await context.newPage();
      page.on('request', (r) => {
        urls.push(r.url());
        // C71: what each state-changing admin call of the page carried.
        if (r.method() !== 'GET' && new URL(r.url()).pathname.startsWith('/admin/'))
          changes.push(
            r
              .allHeaders()
              .then((headers) => ({ call: `${r.method()} ${new URL(r.url()).pathname}`, headers })),
          );
      });
      page.on('pageerror', (e) => pageErrors.push(e.message));
      mkdirSync(artifacts, { recursive: true });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('asks for the admin token, refuses a wrong one, and signs in with a session cookie', async () => {
      const res = await page.goto(`${server.url}/inspector/`);
      expect(res?.status()).toBe(200);
      await page.locator('input[name=token]').fill('not-the-token');
      await page.click('button:has-text("Sign in")');
      await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('Authentication failed.');
      await page.screenshot({ path: `${artifacts}login.png` });
      await page.locator('input[name=token]').fill(admin);
      await page.click('button:has-text("Sign in")');
      await page.locator('h1', { hasText: 'Requests' }).waitFor();
      await page.locator('[data-live=live]').waitFor();
      const cookie = (await page.context().cookies()).find((c) => c.name === 'ems_admin');
      expect(cookie?.httpOnly).toBe(true);
      expect(cookie?.sameSite).toBe('Strict');
      expect(cookie?.value).not.toContain(admin);
    }, 30_000);

    it('shows a valid and a bad request as they arrive, with their counts', async () => {
      const now = Math.floor(Date.now() / 1000);
      const good = await send([event(now, { event_id: 'good-1' })]);
      const bad = await send([
        event(now, { event_id: 'bad-1', custom_data: { currency: 'XYZ', value: '1.00' } }),
      ]);
      expect([good.status, bad.status]).toEqual([200, 200]);
      expect(bad.body.events[0].status).toBe('failed');
      ids.good = good.id;
      ids.bad = bad.id;
      const rows = page.locator('tr[data-request-id]');
      await expect.poll(() => rows.count(), { timeout: 5_000 }).toBe(2);
      // Newest first: the bad request on top, one failed event; the good one processed.
      expect(await rows.nth(0).getAttribute('data-request-id')).toBe(bad.id);
      expect(await rows.nth(0).locator('td.failed').textContent()).toBe('1');
      expect(await rows.nth(0).locator('td.processed').textContent()).toBe('0');
      expect(await rows.nth(1).getAttribute('data-request-id')).toBe(good.id);
      expect(await rows.nth(1).locator('td.processed').textContent()).toBe('1');
      expect(await page.locator('.totals').textContent()).toContain('1 failed');
      await page.screenshot({ path: `${artifacts}requests.png`, fullPage: true });
    }, 30_000);

    it('opens the failed event: its message beside the highlighted field, match quality below', async () => {
      await page.locator(`tr[data-request-id="${ids.bad}"] a`).click();
      const card = page.locator('article.event[data-status=failed]');
      await card.waitFor({ timeout: 5_000 });
      const line = card.locator('.line.hl[data-path="custom_data.currency"]');
      await line.waitFor({ timeout: 5_000 });
      expect(await line.locator('.code').textContent()).toBe('    "currency": "XYZ",');
      expect(await line.locator('.note').textContent()).toBe(
        'custom_data.currency must be an ISO-4217 currency code such as "USD"; received "XYZ".',
      );
      await page.screenshot({ path: `${artifacts}detail.png`, fullPage: true });
      // Only the named field is marked.
      expect(await card.locator('.line.hl').count()).toBe(1);
      expect(await card.locator('.quality').textContent({ timeout: 5_000 })).toContain('user_data.em');
    }, 30_000);

    it('says why a request was refused as a whole: the details the client got, the body as kept (C96)', async () => {
      const post = (body: string, token = conversion) =>
        fetch(`${server.url}/v5/ad_accounts/${account}/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
      // No batch, with an unhashed e-mail address inside: refused, and the address is kept nowhere (C70).
      const noBatch = await post('{"data": {"user_data": {"em": "jane.doe@example.com"}}}');
      expect(noBatch.status).toBe(400);
      await page.goto(`${server.url}/inspector/#/requests/${noBatch.headers.get('x-request-id')}`);
      const refusal = page.locator('.refusal');
      await refusal.locator('.refusal-details li').first().waitFor({ timeout: 5_000 });
      expect(await refusal.locator('.request-error').textContent()).toBe(
        'The request was invalid. (code 4196)',
      );
      expect(await refusal.locator('.refusal-details li').allTextContents()).toEqual([
        'data: must be an array of events; received (not kept: a string of 43 character(s))',
      ]);
      const line = refusal.locator('.line.hl[data-path="data"]');
      expect(await line.locator('.note').textContent()).toBe(
        'must be an array of events; received (not kept: a string of 43 character(s))',
      );
      expect(await refusal.locator('.line[data-path="data.user_data.em"] .code').textContent()).toBe(
        '      "em": "(not kept: an unhashed e-mail address, 20 character(s))"',
      );
      expect(await page.content()).not.toContain('jane.doe');
      await page.screenshot({ path: `${artifacts}refused.png`, fullPage: true });

      // Not JSON: the body is shown as it came.
      const broken = await post('{"data": [1,');
      await page.goto(`${server.url}/inspector/#/requests/${broken.headers.get('x-request-id')}`);
      await refusal.locator('pre.raw-body').waitFor({ timeout: 5_000 });
      expect(await refusal.locator('.refusal-details li').allTextContents()).toEqual([
        'body: not valid JSON: Unexpected end of JSON input',
      ]);
      expect(await refusal.locator('pre.raw-body').textContent()).toBe('{"data": [1,');

      // C118: the page is the server's id; the client's own id is shown beside it, linked to its requests.
      const traced = await fetch(`${server.url}/v5/ad_accounts/${account}/events`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${conversion}`,
          'content-type': 'application/json',
          'x-request-id': 'trace-77',
        },
        body: '{"data": [1,',
      });
      expect(traced.headers.get('x-request-id')).toBe('trace-77');
      await page.goto(`${server.url}/inspector/#/requests/${traced.headers.get('x-pinterest-rid')}`);
      const client = page.locator('dl.facts a', { hasText: 'trace-77' });
      await client.waitFor({ timeout: 5_000 });
      expect(await client.getAttribute('href')).toBe('#/requests?client_request_id=trace-77');

      // A wrong token: refused before the body was read, so the reason and no body.
      const unknown = await post('{"data": []}', 'not-a-known-token-0123456789');
      expect(unknown.status).toBe(401);
      await page.goto(`${server.url}/inspector/#/requests/${unknown.headers.get('x-request-id')}`);
      // Only the hash changes: the previous request's details stay until this one is rendered.
      await refusal
        .locator('.refusal-details li', { hasText: 'headers.authorization' })
        .waitFor({ timeout: 5_000 });
      expect(await refusal.locator('.refusal-details li').allTextContents()).toEqual([
        'headers.authorization: the token is unknown or revoked',
      ]);
      expect(await refusal.textContent()).toContain('No body is kept');
    }, 30_000);

    it('filters to requests with failed events, and the filter lives in the URL', async () => {
      await page.goto(`${server.url}/inspector/#/requests`);
      await page.locator('tr[data-request-id]').nth(1).waitFor();
      await page.selectOption('select[name=outcome]', 'failed');
      await page.click('button:has-text("Apply")');
      await page.waitForURL(/#\/requests\?outcome=failed$/);
      await expect.poll(() => page.locator('tr[data-request-id]').count()).toBe(1);
      expect(await page.locator('tr[data-request-id]').getAttribute('data-request-id')).toBe(ids.bad);
      // A request that arrives live and does not match the filter stays out.
      await send([event(Math.floor(Date.now() / 1000), { event_id: 'good-2' })]);
      const third = await send([event(Math.floor(Date.now() / 1000), { event_id: '' })]);
      await expect.poll(() => page.locator('tr[data-request-id]').count()).toBe(2);
      expect(await page.locator('tr[data-request-id]').first().getAttribute('data-request-id')).toBe(
        third.id,
      );
    }, 30_000);

    it('exports the filtered list as NDJSON through the export link (the cookie authenticates it)', async () => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('a:has-text("Export NDJSON")'),
      ]);
      expect(download.suggestedFilename()).toBe('requests.ndjson');
      const lines = readFileSync((await download.path())!, 'utf8')
        .trim()
        .split('\n');
      const exported = lines.map((l) => JSON.parse(l) as { request_id: string; failed: number });
      expect(exported.map((r) => r.request_id)).toContain(ids.bad);
      expect(exported.map((r) => r.request_id)).not.toContain(ids.good);
      expect(exported.every((r) => r.failed > 0)).toBe(true);
    }, 30_000);

    it('lists stored events with a link to the request that brought each', async () => {
      await page.goto(`${server.url}/inspector/#/events?ad_account_id=${account}`);
      const row = page.locator('table.events tbody tr', { hasText: 'good-1' });
      await row.waitFor();
      // The bad event was never stored.
      expect(await page.locator('table.events').textContent()).not.toContain('bad-1');
      await page.screenshot({ path: `${artifacts}events.png`, fullPage: true });
      await row.locator('a').click();
      await page.locator('h1 code', { hasText: ids.good! }).waitFor();
    }, 30_000);

    it('pages stored events: the first page, then the older ones with "Load older" (C107)', async () => {
      const now = Math.floor(Date.now() / 1000);
      const batch = Array.from({ length: 60 }, (_, i) => event(now, { event_id: `paged-${i}` }));
      expect((await send(batch)).status).toBe(200);
      await page.goto(`${server.url}/inspector/#/events?ad_account_id=${account}`);
      const rows = page.locator('table.events tbody tr');
      await expect.poll(() => rows.count()).toBe(50);
      await page.click('button:has-text("Load older")');
      // The 60 of this batch and the 2 stored earlier (good-1, good-2), each once; nothing older is left.
      await expect.poll(() => rows.count()).toBe(62);
      await page.locator('button:has-text("Load older")').waitFor({ state: 'detached' });
    }, 30_000);

    it('lists faults, adds one with the form, and deletes it', async () => {
      await page.goto(`${server.url}/inspector/#/faults`);
      await page.locator('text=No faults').waitFor();
      await page.selectOption('select[name=kind]', 'rate_limited');
      await page.locator('input[name=ad_account_id]').fill(account);
      await page.locator('input[name=amount]').fill('1');
      await page.click('button:has-text("Add fault")');
      const row = page.locator('tr[data-fault-id]');
      await row.waitFor();
      expect(await row.textContent()).toContain('next 1 requests (1 left)');
      const limited = await send([event(Math.floor(Date.now() / 1000), { event_id: 'faulted' })]);
      expect(limited.status).toBe(429);
      await page.reload();
      await expect.poll(() => page.locator('tr[data-fault-id] td.n').textContent()).toBe('1');
      await page.screenshot({ path: `${artifacts}faults.png`, fullPage: true });
      await page.click('tr[data-fault-id] button:has-text("Delete")');
      await page.locator('text=No faults').waitFor();
    }, 30_000);

    it('links a duplicate to the request that brought the earlier event', async () => {
      const again = await send([event(Math.floor(Date.now() / 1000), { event_id: 'good-1' })]);
      expect(again.status).toBe(200);
      await page.goto(`${server.url}/inspector/#/requests/${again.id}`);
      const link = page.locator('.duplicate a');
      await link.waitFor();
      expect(await page.locator('.duplicate code').textContent()).toBe('good-1');
      await link.click();
      await page.locator('h1 code', { hasText: ids.good! }).waitFor();
    }, 30_000);

    it('draws the account report with its timeline', async () => {
      await page.goto(`${server.url}/inspector/#/reports/${account}`);
      await page.locator('.chart svg rect.failed').first().waitFor();
      expect(await page.locator('.chart').textContent()).toContain('processed');
      await page.screenshot({ path: `${artifacts}report.png`, fullPage: true });
    }, 30_000);

    it('signs out: the cookie is cleared and the login form is back', async () => {
      await page.click('button:has-text("Sign out")');
      await page.locator('input[name=token]').waitFor();
      expect((await page.context().cookies()).filter((c) => c.name === 'ems_admin' && c.value)).toEqual([]);
      const r = await page.evaluate(async () => (await fetch('/admin/requests')).status);
      expect(r).toBe(401);
    }, 30_000);

    it('sent the session CSRF token and its own origin on every call that changes state (C71)', async () => {
      const sent = await Promise.all(changes);
      const calls = sent.map((c) => c.call);
      expect(calls).toContain('POST /admin/faults');
      expect(calls.some((c) => c.startsWith('DELETE /admin/faults/'))).toBe(true);
      expect(calls).toContain('DELETE /admin/session');
      for (const c of sent.filter((x) => x.call !== 'POST /admin/session')) {
        expect(c.headers[CSRF_HEADER], c.call).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(c.headers.origin, c.call).toBe(server.url);
      }
    });

    it('never put the token in a URL, loaded nothing from another host, and threw no error', () => {
      expect(urls.filter((u) => u.includes(admin))).toEqual([]);
      expect(urls.filter((u) => !u.startsWith(server.url) && !u.startsWith('data:'))).toEqual([]);
      expect(pageErrors).toEqual([]);
    });
  },
);
