// The client in Chromium (playwright-core, Debian's /usr/bin/chromium) against the real server: the core
// entry is bundled for the browser platform (esbuild fails on any Node-only import), loaded into a page of
// the server's origin, and sends with the page's own fetch and Web Crypto: batches, local validation,
// hashing, 429 retries under the test limit (C55), and a typed 401.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoServer, event } from './support/server.js';

const CHROMIUM = '/usr/bin/chromium';
/** `pnpm test:quick` runs no browser (EVENTS_TEST_QUICK=1); `pnpm test` does. */
const quickRun = process.env.EVENTS_TEST_QUICK === '1';
const hasChromium = !quickRun && existsSync(CHROMIUM);
if (!hasChromium && !quickRun) {
  const why = `${CHROMIUM} is not installed (apt-get install chromium)`;
  // CI asks every test to run (as the server's test/support/services.ts): a missing browser fails there.
  if (process.env.EVENTS_TEST_REQUIRE_SERVICES === '1')
    throw new Error(
      `[events-client] the browser test cannot run: ${why}, and EVENTS_TEST_REQUIRE_SERVICES=1 asks every test to run`,
    );
  console.warn(`[events-client] browser test skipped: ${why}`);
}

describe.skipIf(!hasChromium)('the client in Chromium', () => {
  let s: Awaited<ReturnType<typeof demoServer>>;
  let browser: Browser;
  let bundle: string;

  beforeAll(async () => {
    const out = await build({
      entryPoints: [fileURLToPath(new URL('../../events-client/src/index.ts', import.meta.url))],
      bundle: true,
      write: false,
      platform: 'browser',
      format: 'iife',
      globalName: 'EventsClient',
      conditions: ['@org/source'],
      logLevel: 'silent',
    });
    bundle = out.outputFiles[0]!.text;
    s = await demoServer();
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('sends, validates, hashes and retries with the page fetch; a 401 is a typed error', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    expect((await page.goto(`${s.url}/healthz`))?.status()).toBe(200);
    await page.evaluate(`${bundle}\nglobalThis.EventsClient = EventsClient;`);
    const events = [
      event('br-1', { user_data: { em: ' Jane@Example.com ' } }),
      event('br-2', { event_name: 'subscription' }),
      ...Array.from({ length: 14 }, (_, i) => event(`br-r${i}`)),
    ];
    const got = await page.evaluate(
      async ({ token, account, events }) => {
        // biome-ignore lint/suspicious/noExplicitAny: the bundle's global, typed in Node only
        const { createClient, EventsApiError } = (globalThis as any).EventsClient;
        const client = createClient({
          baseUrl: location.origin,
          token,
          adAccountId: account,
          maxBatchEvents: 1,
          concurrency: 8,
        });
        const results = await client.sendEvents(events, { test: true, validate: true, hash: true });
        const bad = createClient({ baseUrl: location.origin, token: 'nope', adAccountId: account });
        const [denied] = await bad.sendEvents([events[0]]);
        return {
          results: results.map((r: { status: string; batch: number | null; attempts: number }) => [
            r.status,
            r.batch,
            r.attempts,
          ]),
          denied: [
            denied.status,
            denied.error instanceof EventsApiError,
            denied.error.status,
            denied.error.kind,
          ],
          nodeGlobals: typeof (globalThis as { process?: unknown }).process,
        };
      },
      { token: s.creds.conversionToken, account: s.creds.adAccountId, events },
    );
    expect(got.nodeGlobals).toBe('undefined');
    expect(got.results[0]!.slice(0, 2)).toEqual(['processed', 0]);
    expect(got.results[1]).toEqual(['invalid', null, 0]);
    expect(got.results.slice(2).map((r: unknown[]) => r.slice(0, 2))).toEqual(
      Array.from({ length: 14 }, (_, i) => ['processed', i + 1]),
    );
    // 15 requests against 10 per second: some batches took more than one attempt.
    expect(got.results.some((r: unknown[]) => (r[2] as number) > 1)).toBe(true);
    expect(got.denied).toEqual(['not_sent', true, 401, 'unauthorized']);
    expect(errors).toEqual([]);
  }, 30_000);
});
