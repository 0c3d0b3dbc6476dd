// C70 (issue 19, N1): a value the service refused or dropped as personal data never reaches disk, a log, an
// admin answer, an export or the inspector's page. Real servers over real HTTP send the shapes that carry
// such values (a live and a test batch, a body that is not JSON, a body refused as a whole, a large body the
// SQLite store compresses); then every file of the SQLite store (database, WAL), every row of every
// PostgreSQL table, every GET answer of the admin API (exports in both formats, the live stream) and the
// inspector's rendered page are searched for the raw values. Each search first finds a value that must be
// there, so a search that reads nothing cannot pass.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../src/generated/routes.gen.js';
import { type RunningServer, startServer } from '../src/index.js';
import { CHROMIUM, hasChromium, launchChromium } from './support/chromium.js';
import { A, event, T } from './support/fixtures.js';
import { createTestDatabase, postgresReachable, type TestDatabase } from './support/postgres.js';
import { type Harness, startHarness } from './support/server.js';

const pgUp = await postgresReachable();

/** The raw values: each is refused or dropped by the validators and must be found nowhere. */
const RAW = {
  email: 'jane.doe@example.com',
  phone: '+1 (555) 010-0199',
  ip: '999.31.41.59',
  firstName: 'Janet-Privacy',
  userAgent: 'curl/8.4.0 (privacy-test-agent)',
  scalarEmail: 'scalar.jane@example.com',
  brokenEmail: 'broken.jane@example.com',
  refusedEmail: 'refused.jane@example.com',
  largeEmail: 'large.jane@example.com',
  testEmail: 'test.jane@example.com',
};

/** Present on purpose: a stored clean event's id, found in the same places, proves the search reads them. */
const MARKER = 'privacy-marker-7c1e';

interface Sent {
  ids: string[];
}

async function sendAll(server: RunningServer): Promise<Sent> {
  const account = server.demo!.adAccountId;
  const token = server.demo!.conversionToken;
  const now = Math.floor(Date.now() / 1000);
  const post = async (id: string, body: string, query = '') => {
    const r = await fetch(`${server.url}/v5/ad_accounts/${account}/events${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': id },
      body,
    });
    await r.text();
    return r.status;
  };
  const refused = (id: string, extra: Record<string, unknown>) =>
    event(now, {
      event_id: id,
      user_data: {
        em: [RAW.email],
        ph: [RAW.phone],
        client_ip_address: RAW.ip,
        client_user_agent: RAW.userAgent,
        fn: [RAW.firstName],
      },
      ...extra,
    });
  const statuses = [
    await post(
      'live',
      JSON.stringify({
        data: [
          refused('p-1', {}),
          event(now, { event_id: 'p-2', user_data: { em: RAW.scalarEmail } }),
          event(now, { event_id: MARKER }),
        ],
      }),
    ),
    await post(
      'test',
      JSON.stringify({ data: [event(now, { event_id: 'p-3', user_data: { em: [RAW.testEmail] } })] }),
      '?test=true',
    ),
    await post('broken', `{"data":[{"event_id":"p-4","user_data":{"em":["${RAW.brokenEmail}"],}]`),
    await post('refused', JSON.stringify({ events: [{ user_data: { em: [RAW.refusedEmail] } }] })),
    await post(
      'large',
      JSON.stringify({
        data: [
          ...Array.from({ length: 120 }, (_, i) => event(now, { event_id: `p-large-${i}` })),
          event(now, { event_id: 'p-large-raw', user_data: { em: [RAW.largeEmail] } }),
        ],
      }),
    ),
  ];
  expect(statuses).toEqual([200, 200, 400, 400, 200]);
  return { ids: ['live', 'test', 'broken', 'refused', 'large'] };
}

/** Says which value was found where, without printing a whole page or table. */
function expectNoRawValue(where: string, text: string) {
  const found = Object.entries(RAW)
    .filter(([, value]) => text.includes(value))
    .map(
      ([name, value]) =>
        `${name} at ${text.indexOf(value)}: …${text.slice(text.indexOf(value) - 80, text.indexOf(value))}`,
    );
  expect(found, `raw values in ${where}`).toEqual([]);
}

/** Every GET answer of the admin API (and the other GET routes) for what was sent; the stream separately. */
async function adminAnswers(server: RunningServer, ids: string[]): Promise<Map<string, string>> {
  const account = server.demo!.adAccountId;
  const out = new Map<string, string>();
  for (const r of Object.values(ROUTES)) {
    if (r.method !== 'GET' || r.path === '/admin/requests/stream') continue;
    const formats = (r.queryParams as Record<string, { enum: readonly string[] | null }>).format?.enum ?? [
      null,
    ];
    const paths = r.path.includes('{request_id}')
      ? ids.map((id) => r.path.replace('{request_id}', id))
      : [r.path.replace('{ad_account_id}', account)];
    for (const p of paths)
      for (const f of formats) {
        if (p.includes('{')) continue;
        const url = `${server.url}${p}${f ? `?format=${f}` : ''}`;
        const res = await fetch(url, { headers: { authorization: `Bearer ${server.demo!.adminToken}` } });
        out.set(`${p} ${f ?? ''}`, `${res.status} ${await res.text()}`);
      }
  }
  return out;
}

/** The live stream of C62 while the requests are sent. */
async function streamDuring(server: RunningServer, send: () => Promise<unknown>): Promise<string> {
  const ac = new AbortController();
  const res = await fetch(`${server.url}/admin/requests/stream`, {
    headers: { authorization: `Bearer ${server.demo!.adminToken}` },
    signal: ac.signal,
  });
  const reader = res.body!.getReader();
  let text = '';
  const reading = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += Buffer.from(value).toString('utf8');
      }
    } catch {}
  })();
  await send();
  for (let waited = 0; (text.match(/^event: request$/gm) ?? []).length < 5; waited += 50) {
    if (waited > 10_000) throw new Error(`the stream sent ${text.slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  ac.abort();
  await reading;
  return text;
}

describe('C70 on SQLite: the files, the admin API, exports, the stream and the inspector', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ems-privacy-'));
  let server: RunningServer;
  let ids: string[];
  let stream: string;

  beforeAll(async () => {
    server = await startServer({ port: 0, db: join(dir, 'events.db'), docs: false });
    stream = await streamDuring(server, async () => {
      ids = (await sendAll(server)).ids;
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the request detail shows the shape of each refused value, and every other value as sent', async () => {
    const res = await fetch(`${server.url}/admin/requests/live`, {
      headers: { authorization: `Bearer ${server.demo!.adminToken}` },
    });
    const detail = (await res.json()) as { items: { event: { user_data: unknown } }[] };
    expect(detail.items[0]?.event.user_data).toEqual({
      em: ['(not kept: an unhashed e-mail address, 20 character(s))'],
      ph: ['(not kept: an unhashed phone number, 17 character(s))'],
      client_ip_address: '(not kept: a string of 12 character(s))',
      client_user_agent: '(not kept: a string of 31 character(s))',
      fn: ['(not kept: a string of 13 character(s))'],
    });
    expect(detail.items[1]?.event.user_data).toEqual({
      em: '(not kept: an unhashed e-mail address, 23 character(s))',
    });
  });

  it('no admin answer, export or stream holds a raw value', async () => {
    const answers = await adminAnswers(server, ids);
    const all = [...answers.values()].join('\n');
    expect(all).toContain(MARKER);
    expect(answers.get('/admin/events/export csv')).toContain(MARKER);
    expect(answers.get('/admin/requests/large ')).toContain('not kept: an unhashed e-mail address');
    for (const [where, text] of answers) expectNoRawValue(where, text);
    expect(stream).toContain('"request_id":"large"');
    expectNoRawValue('the stream', stream);
  });

  it('no file of the store holds a raw value: the database, its WAL, before and after a checkpoint', async () => {
    // An admin read writes what the request log holds (C60).
    await fetch(`${server.url}/admin/requests`, {
      headers: { authorization: `Bearer ${server.demo!.adminToken}` },
    });
    const files = () => readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('latin1')]);
    const before = files();
    expect(before.map(([f]) => f)).toContain('events.db-wal');
    expect(before.map(([, t]) => t).join('')).toContain(MARKER);
    for (const [f, t] of before) expectNoRawValue(f as string, t as string);
    await server.close();
    const after = files();
    expect(after.map(([, t]) => t).join('')).toContain(MARKER);
    for (const [f, t] of after) expectNoRawValue(f as string, t as string);
  });
});

describe.skipIf(!hasChromium)(
  `C70 in the inspector's rendered page${hasChromium ? '' : ` (skipped: ${CHROMIUM} not installed)`}`,
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'ems-privacy-page-'));
    let server: RunningServer;

    beforeAll(async () => {
      server = await startServer({ port: 0, db: join(dir, 'events.db'), docs: false });
      await sendAll(server);
    }, 60_000);

    afterAll(async () => {
      await server?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('the request pages show the shapes, never the values', async () => {
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${server.url}/inspector/`);
        await page.locator('input[name=token]').fill(server.demo!.adminToken);
        await page.click('button:has-text("Sign in")');
        await page.locator('h1', { hasText: 'Requests' }).waitFor();
        for (const id of ['live', 'large', 'test']) {
          await page.goto(`${server.url}/inspector/#/requests/${id}`);
          await page.locator('article.event').first().waitFor({ timeout: 10_000 });
          // The refused event's card, with the shape in place of the value.
          await page
            .locator('article.event', { hasText: 'not kept: an unhashed e-mail address' })
            .first()
            .waitFor({ timeout: 10_000 });
          const html = await page.content();
          expectNoRawValue(`the page of ${id}`, html);
        }
        await page.goto(`${server.url}/inspector/#/events?ad_account_id=${server.demo!.adAccountId}`);
        await page
          .locator('table.events tbody tr', { hasText: 'p-large-' })
          .first()
          .waitFor({ timeout: 10_000 });
        expectNoRawValue('the events page', await page.content());
      } finally {
        await browser.close();
      }
    }, 60_000);
  },
);

describe.skipIf(!pgUp)('C70 on PostgreSQL: no row of any table holds a raw value', () => {
  let db: TestDatabase;
  let server: RunningServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await startServer({ port: 0, storeUrl: db.url, docs: false, inspector: false });
    await sendAll(server);
    await fetch(`${server.url}/admin/requests`, {
      headers: { authorization: `Bearer ${server.demo!.adminToken}` },
    });
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await db?.drop();
  });

  it('every table, read as text', async () => {
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      const tables = await c.query<{ name: string }>(
        "SELECT quote_ident(table_name) AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
      );
      expect(tables.rows.map((t) => t.name)).toContain('request_log');
      let all = '';
      for (const t of tables.rows) {
        const rows = await c.query<{ row: string }>(`SELECT t::text AS row FROM ${t.name} t`);
        const text = rows.rows.map((r) => r.row).join('\n');
        expectNoRawValue(t.name, text);
        all += text;
      }
      expect(all).toContain(MARKER);
      expect(all).toContain('not kept: an unhashed e-mail address');
    } finally {
      await c.end();
    }
    const answers = await adminAnswers(server, ['live', 'test', 'broken', 'refused', 'large']);
    for (const [where, text] of answers) expectNoRawValue(where, text);
  });
});

describe('C70 request_log.bodies: which bodies are kept at all', () => {
  const detailOf = async (h: Harness, id: string) =>
    (await h.call('GET', `/admin/requests/${id}`, { token: T.admin })).body as {
      items: { index: number; event: unknown }[];
    };
  const sendTwo = async (h: Harness) => {
    const clean = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [event(h.nowS(), { event_id: 'clean-1' })] },
      headers: { 'x-request-id': 'clean' },
    });
    const warned = await h.call('POST', `/v5/ad_accounts/${A}/events`, {
      token: T.convA,
      body: { data: [event(h.nowS(), { event_id: 'warned-1', partner_name: 'acme' })] },
      headers: { 'x-request-id': 'warned' },
    });
    expect([clean.status, warned.body.events[0].warning_message === null]).toEqual([200, false]);
  };

  it('none: no body is kept, the answers and counts are', async () => {
    const h = await startHarness({ requestLog: { bodies: 'none' } });
    try {
      await sendTwo(h);
      const warned = await detailOf(h, 'warned');
      expect(warned.items.map((i) => i.event)).toEqual([null]);
      expect((await detailOf(h, 'clean')).items.map((i) => i.event)).toEqual([null]);
    } finally {
      await h.close();
    }
  });

  it('problems: the body of a request with a warned event is kept, a clean one is not', async () => {
    const h = await startHarness({ requestLog: { bodies: 'problems' } });
    try {
      await sendTwo(h);
      expect(
        (await detailOf(h, 'warned')).items.map((i) => (i.event as { event_id: string }).event_id),
      ).toEqual(['warned-1']);
      expect((await detailOf(h, 'clean')).items.map((i) => i.event)).toEqual([null]);
    } finally {
      await h.close();
    }
  });
});
