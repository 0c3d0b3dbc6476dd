// C70 (issue 19, N1): a value the service refused or dropped as personal data never reaches disk, a log, an
// admin answer, an export or the inspector's page. Real servers over real HTTP send the shapes that carry
// such values (a live and a test batch, a body that is not JSON, a body refused as a whole, a large body the
// SQLite store compresses); then every file of the SQLite store (database, WAL), every row of every
// PostgreSQL table, every GET answer of the admin API (exports in both formats, the live stream) and the
// inspector's rendered page are searched for the raw values: 30 kinds, among them values in members the service
// does not know (C117). Each search first finds a value that must be
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
  // C117: what a sender puts where the service knows no member.
  topEmail: 'top.jane@example.com',
  customerEmail: 'customer.jane@example.com',
  dataEmail: 'data.jane@example.com',
  deepPhone: '+1 555 010 0142',
  contentsEmail: 'contents.jane@example.com',
  firstNameField: 'Marguerite-Privacy',
  lastNameField: 'Oyelaran-Privacy',
  billingStreet: '12 Privacy Lane',
  zip: 'SW1A 1AA',
  birthDate: '1984-07-19',
  strayIp: '203.0.113.77',
  phoneNumber: '15550123987',
  appEmail: 'app.jane@example.com',
  bodyEmail: 'body.jane@example.com',
  nestedUserData: 'nested.jane@example.com',
  emailList: 'list.jane@example.com',
  camelPhone: '+44 20 7946 0958',
  strayIpv6: '2001:db8::7334',
  eventName: 'name.jane@example.com',
  currencyEmail: 'currency.jane@example.com',
};

/** Present on purpose: a stored clean event's id, found in the same places, proves the search reads them. */
const MARKER = 'privacy-marker-7c1e';

/** The server's id of each request, by the name the test gives it (C118: the log's key is the server's). */
interface Sent {
  ids: Record<string, string>;
}

async function sendAll(server: RunningServer): Promise<Sent> {
  const account = server.demo!.adAccountId;
  const token = server.demo!.conversionToken;
  const now = Math.floor(Date.now() / 1000);
  const ids: Record<string, string> = {};
  const post = async (id: string, body: string, query = '') => {
    const r = await fetch(`${server.url}/v5/ad_accounts/${account}/events${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': id },
      body,
    });
    await r.text();
    ids[id] = r.headers.get('x-pinterest-rid') as string;
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
    // C117: one event per kind of value in a member the service does not know; each fails alone.
    await post(
      'unknown',
      JSON.stringify({
        data: [
          event(now, { event_id: 'u-1', email: RAW.topEmail }),
          event(now, {
            event_id: 'u-2',
            custom_data: { currency: 'USD', customer_email: RAW.customerEmail },
          }),
          RAW.dataEmail,
          event(now, {
            event_id: 'u-3',
            custom_data: { notes: { contact: { list: [{ value: RAW.deepPhone }] } } },
          }),
          event(now, {
            event_id: 'u-4',
            custom_data: { contents: [{ id: 'sku-1', buyer: RAW.contentsEmail }] },
          }),
          event(now, { event_id: 'u-5', custom_data: { first_name: RAW.firstNameField } }),
          event(now, { event_id: 'u-6', last_name: RAW.lastNameField }),
          event(now, { event_id: 'u-7', custom_data: { billing_address: { line1: RAW.billingStreet } } }),
          event(now, {
            event_id: 'u-8',
            custom_data: { shipping_zip: RAW.zip, date_of_birth: RAW.birthDate },
          }),
          event(now, { event_id: 'u-9', custom_data: { ip: RAW.strayIp, device_ip: RAW.strayIpv6 } }),
          event(now, { event_id: 'u-10', custom_data: { phone_number: Number(RAW.phoneNumber) } }),
          event(now, { event_id: 'u-11', app_info: { contact_email: RAW.appEmail } }),
          event(now, { event_id: 'u-12', custom_data: { user_data: { em: [RAW.nestedUserData] } } }),
          event(now, {
            event_id: 'u-13',
            custom_data: { emails: [RAW.emailList], customerPhone: RAW.camelPhone },
          }),
          event(now, { event_id: 'u-14', event_name: RAW.eventName }),
          event(now, { event_id: 'u-15', custom_data: { currency: RAW.currencyEmail, value: '5' } }),
        ],
      }),
    ),
    await post(
      'unknown-body',
      JSON.stringify({ data: [event(now, { event_id: 'u-16' })], email: RAW.bodyEmail }),
    ),
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
  expect(statuses).toEqual([200, 200, 400, 400, 200, 400, 200]);
  expect(Object.keys(ids)).toEqual(['live', 'test', 'broken', 'refused', 'unknown', 'unknown-body', 'large']);
  return { ids };
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
async function adminAnswers(
  server: RunningServer,
  ids: Record<string, string>,
): Promise<Map<string, string>> {
  const account = server.demo!.adAccountId;
  const out = new Map<string, string>();
  for (const r of Object.values(ROUTES)) {
    if (r.method !== 'GET' || r.path === '/admin/requests/stream') continue;
    const formats = (r.queryParams as Record<string, { enum: readonly string[] | null }>).format?.enum ?? [
      null,
    ];
    const paths = r.path.includes('{request_id}')
      ? Object.values(ids).map((id) => r.path.replace('{request_id}', id))
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
  for (let waited = 0; (text.match(/^event: request$/gm) ?? []).length < 7; waited += 50) {
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
  let ids: Record<string, string>;
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
    const res = await fetch(`${server.url}/admin/requests/${ids.live}`, {
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

  it('C117: 30 kinds of raw value; those in members the service does not know show as their shape, the rest as sent', async () => {
    expect(Object.keys(RAW)).toHaveLength(30);
    const res = await fetch(`${server.url}/admin/requests/${ids.unknown}`, {
      headers: { authorization: `Bearer ${server.demo!.adminToken}` },
    });
    const detail = (await res.json()) as { items: { index: number; status: string; event: unknown }[] };
    expect(detail.items.map((i) => i.status)).toEqual(Array(16).fill('failed'));
    /** The kept event of item `i`, or a value under it by path. */
    const at = (i: number, ...path: (string | number)[]): unknown =>
      path.reduce<unknown>(
        (v, k) => (v as Record<string | number, unknown> | null)?.[k],
        detail.items.find((x) => x.index === i)?.event,
      );
    expect(at(0)).toMatchObject({
      event_id: 'u-1',
      email: '(not kept: an unhashed e-mail address, 20 character(s))',
    });
    expect(at(1, 'custom_data')).toEqual({
      currency: 'USD',
      customer_email: '(not kept: an unhashed e-mail address, 25 character(s))',
    });
    expect(at(2)).toBe('(not kept: an unhashed e-mail address, 21 character(s))');
    expect(at(3, 'custom_data', 'notes', 'contact', 'list', 0, 'value')).toBe(
      '(not kept: an unhashed phone number, 15 character(s))',
    );
    expect(at(4, 'custom_data', 'contents', 0)).toEqual({
      id: 'sku-1',
      buyer: '(not kept: an unhashed e-mail address, 25 character(s))',
    });
    expect(at(8, 'custom_data')).toEqual({
      shipping_zip: '(not kept: a string of 8 character(s))',
      date_of_birth: '(not kept: a string of 10 character(s))',
    });
    expect(at(9, 'custom_data')).toEqual({
      ip: '(not kept: an IP address, 12 character(s))',
      device_ip: '(not kept: an IP address, 14 character(s))',
    });
    expect(at(10, 'custom_data')).toEqual({ phone_number: '(not kept: an integer)' });
  });

  it('no admin answer, export or stream holds a raw value', async () => {
    const answers = await adminAnswers(server, ids);
    const all = [...answers.values()].join('\n');
    expect(all).toContain(MARKER);
    expect(answers.get('/admin/events/export csv')).toContain(MARKER);
    expect(answers.get(`/admin/requests/${ids.large} `)).toContain('not kept: an unhashed e-mail address');
    for (const [where, text] of answers) expectNoRawValue(where, text);
    expect(stream).toContain(`"request_id":"${ids.large}"`);
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
    let ids: Record<string, string>;

    beforeAll(async () => {
      server = await startServer({ port: 0, db: join(dir, 'events.db'), docs: false });
      ids = (await sendAll(server)).ids;
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
        for (const name of ['live', 'large', 'test']) {
          const id = ids[name];
          await page.goto(`${server.url}/inspector/#/requests/${id}`);
          await page.locator('article.event').first().waitFor({ timeout: 10_000 });
          // The refused event's card, with the shape in place of the value.
          await page
            .locator('article.event', { hasText: 'not kept: an unhashed e-mail address' })
            .first()
            .waitFor({ timeout: 10_000 });
          const html = await page.content();
          expectNoRawValue(`the page of ${name}`, html);
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
  let pgIds: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase();
    server = await startServer({ port: 0, storeUrl: db.url, docs: false, inspector: false });
    pgIds = (await sendAll(server)).ids;
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
    const answers = await adminAnswers(server, pgIds);
    for (const [where, text] of answers) expectNoRawValue(where, text);
  });
});

describe('C70 request_log.bodies: which bodies are kept at all', () => {
  const detailOf = async (h: Harness, id: string) =>
    (await h.call('GET', `/admin/requests/${id}`, { token: T.admin })).body as {
      items: { index: number; event: unknown }[];
    };
  const sendTwo = async (h: Harness): Promise<{ clean: string; warned: string }> => {
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
    const rid = (r: { headers: Headers }) => r.headers.get('x-pinterest-rid') as string;
    return { clean: rid(clean), warned: rid(warned) };
  };

  it('none: no body is kept, the answers and counts are', async () => {
    const h = await startHarness({ requestLog: { bodies: 'none' } });
    try {
      const ids = await sendTwo(h);
      const warned = await detailOf(h, ids.warned);
      expect(warned.items.map((i) => i.event)).toEqual([null]);
      expect((await detailOf(h, ids.clean)).items.map((i) => i.event)).toEqual([null]);
    } finally {
      await h.close();
    }
  });

  it('problems: the body of a request with a warned event is kept, a clean one is not', async () => {
    const h = await startHarness({ requestLog: { bodies: 'problems' } });
    try {
      const ids = await sendTwo(h);
      expect(
        (await detailOf(h, ids.warned)).items.map((i) => (i.event as { event_id: string }).event_id),
      ).toEqual(['warned-1']);
      expect((await detailOf(h, ids.clean)).items.map((i) => i.event)).toEqual([null]);
    } finally {
      await h.close();
    }
  });
});
