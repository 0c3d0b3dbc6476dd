// Issue 21: a tool written for Pinterest's API meets the same routes and shapes (C91, C92), over real HTTP.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../src/index.js';
import { A, B, event, T } from './support/fixtures.js';
import { createTestDatabase } from './support/postgres.js';
import { type Harness, startHarness, T0 } from './support/server.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const ade = `/v5/ad_accounts/${A}/advertiser_defined_events`;
const cdr = `/v5/ad_accounts/${A}/conversion_deletion_requests`;
/** A create (POST) or update (PATCH) of advertiser defined events, as Pinterest's client sends it. */
const write = (method: 'POST' | 'PATCH', items: unknown[]) =>
  h.call(method, ade, { token: T.oauthStd, body: { items } });

describe("C92 Pinterest's advertiser_defined_events", () => {
  test("create, get, update and delete with Pinterest's shapes; custom_event_types sees the same names", async () => {
    const created = await write('POST', [
      { name: 'Quiz_Completed', mapped_conversion_type: 'LEAD' },
      { name: 'checkout', mapped_conversion_type: 'CHECKOUT' },
      { name: 'quiz_completed', mapped_conversion_type: 'SIGNUP' },
    ]);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      items: [
        { name: 'Quiz_Completed', status: 'success' },
        {
          name: 'checkout',
          status: 'failure',
          exceptions: [
            '"checkout" is a standard event name; send it as event_name as it is, no registration needed',
          ],
        },
        {
          name: 'quiz_completed',
          status: 'failure',
          exceptions: [
            'a custom event type named Quiz_Completed exists already (names are case-insensitive)',
          ],
        },
      ],
    });
    const got = await h.call('GET', ade, { token: T.oauthReadOnly });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ items: [{ name: 'Quiz_Completed', mapped_conversion_type: 'LEAD' }] });

    const updated = await write('PATCH', [
      { name: 'QUIZ_COMPLETED', mapped_conversion_type: 'SIGNUP' },
      { name: 'never_made', mapped_conversion_type: 'LEAD' },
    ]);
    expect(updated.body).toEqual({
      items: [
        { name: 'Quiz_Completed', status: 'success' },
        { name: 'never_made', status: 'failure', exceptions: ['no custom event type named "never_made"'] },
      ],
    });
    // The alias of one release reads the same registry (C92).
    const alias = await h.call('GET', `/v5/ad_accounts/${A}/custom_event_types`, { token: T.oauthStd });
    expect(
      alias.body.items.map((i: { name: string; mapped_event_name: string }) => [i.name, i.mapped_event_name]),
    ).toEqual([['Quiz_Completed', 'signup']]);
    // The registered name is an event name of the account.
    const sent = await h.send(A, T.convA, [event(h.nowS(), { event_name: 'quiz_completed' })]);
    expect(sent.body.events[0].status).toBe('processed');

    const deleted = await h.call('DELETE', `${ade}?event_names=quiz_completed&event_names=other_one`, {
      token: T.oauthStd,
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      items: [
        { name: 'quiz_completed', status: 'success' },
        { name: 'other_one', status: 'failure', exceptions: ['no custom event type named "other_one"'] },
      ],
    });
    expect((await h.call('GET', ade, { token: T.oauthStd })).body).toEqual({ items: [] });
  });

  test("a body of the wrong shape is a 400; a mapping type outside Pinterest's list too", async () => {
    const r = await h.call('POST', ade, {
      token: T.oauthStd,
      body: { items: [{ name: 'x', mapped_conversion_type: 'PURCHASE' }] },
    });
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: { path: string }) => d.path)).toEqual(['items[0].mapped_conversion_type']);
    const none = await h.call('DELETE', ade, { token: T.oauthStd });
    expect(none.status).toBe(400);
    expect(none.body.details[0].path).toBe('query.event_names');
  });
});

describe('C92 one name, one outcome (issue 38 item 3)', () => {
  test('a name breaking C10 fails alone in a POST and a PATCH; the others are registered; the answer is 200', async () => {
    const long = 'n'.repeat(101);
    const created = await write('POST', [
      { name: 'first_good', mapped_conversion_type: 'LEAD' },
      { name: 'bad name!', mapped_conversion_type: 'LEAD' },
      { name: long, mapped_conversion_type: 'SIGNUP' },
      { name: '', mapped_conversion_type: 'SIGNUP' },
      { name: 'second_good', mapped_conversion_type: 'SIGNUP' },
    ]);
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      items: [
        { name: 'first_good', status: 'success' },
        {
          name: 'bad name!',
          status: 'failure',
          exceptions: [
            'must be a name of letters, digits and underscore, such as newsletter_signup; received "bad name!"',
          ],
        },
        { name: long, status: 'failure', exceptions: ['is 101 characters long; the most accepted is 100'] },
        {
          name: '',
          status: 'failure',
          exceptions: [
            'must not be empty; send a name of letters, digits and underscore, such as newsletter_signup',
          ],
        },
        { name: 'second_good', status: 'success' },
      ],
    });
    expect((await h.call('GET', ade, { token: T.oauthReadOnly })).body).toEqual({
      items: [
        { name: 'first_good', mapped_conversion_type: 'LEAD' },
        { name: 'second_good', mapped_conversion_type: 'SIGNUP' },
      ],
    });
    // The names registered are event names of the account at once.
    const sent = await h.send(A, T.convA, [event(h.nowS(), { event_name: 'second_good' })]);
    expect(sent.body.events[0].status).toBe('processed');

    const updated = await write('PATCH', [
      { name: 'first-good', mapped_conversion_type: 'SIGNUP' },
      { name: 'FIRST_GOOD', mapped_conversion_type: 'CHECKOUT' },
    ]);
    expect(updated.status).toBe(200);
    expect(updated.body.items).toEqual([
      {
        name: 'first-good',
        status: 'failure',
        exceptions: [
          'must be a name of letters, digits and underscore, such as newsletter_signup; received "first-good"',
        ],
      },
      { name: 'first_good', status: 'success' },
    ]);
    // Every name failing is still a 200 with one record each.
    const none = await write('POST', [{ name: 'a b', mapped_conversion_type: 'LEAD' }]);
    expect(none.status).toBe(200);
    expect(none.body.items.map((i: { status: string }) => i.status)).toEqual(['failure']);
  });

  test('a body of another shape is still a 400, naming every problem, bad names too; nothing is registered', async () => {
    const r = await write('POST', [
      { name: 'fine_name', mapped_conversion_type: 'LEAD' },
      { name: 42, mapped_conversion_type: 'LEAD' },
      { name: 'bad name', mapped_conversion_type: 'PURCHASE' },
      { mapped_conversion_type: 'LEAD' },
      { name: 'other_fine', mapped_conversion_type: 'LEAD', extra: true },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: { path: string }) => d.path).sort()).toEqual(
      [
        'items[1].name',
        'items[2].mapped_conversion_type',
        'items[2].name',
        'items[3].name',
        'items[4].extra',
      ].sort(),
    );
    expect((await h.call('GET', ade, { token: T.oauthStd })).body).toEqual({ items: [] });
  });

  test("DELETE takes event_names as Pinterest's SDKs send it: repeated, or comma-separated", async () => {
    await write(
      'POST',
      ['ade_one', 'ade_two', 'ade_three', 'ade_four'].map((name) => ({
        name,
        mapped_conversion_type: 'LEAD',
      })),
    );
    const del = (query: string) => h.call('DELETE', `${ade}?${query}`, { token: T.oauthStd });
    // CSV, as the SDKs that send arrays as `csv` do (Dart, Crystal); the comma may come percent-encoded.
    const csv = await del('event_names=ade_one,ADE_TWO');
    expect(csv.status).toBe(200);
    expect(csv.body).toEqual({
      items: [
        { name: 'ade_one', status: 'success' },
        { name: 'ADE_TWO', status: 'success' },
      ],
    });
    expect((await del('event_names=ade_three%2Cnot_there')).body).toEqual({
      items: [
        { name: 'ade_three', status: 'success' },
        { name: 'not_there', status: 'failure', exceptions: ['no custom event type named "not_there"'] },
      ],
    });
    // One `event_names` per name (explode), as Python's, Java's and TypeScript's SDKs send a list.
    expect((await del('event_names=ade_four&event_names=bad%20name')).body).toEqual({
      items: [
        { name: 'ade_four', status: 'success' },
        { name: 'bad name', status: 'failure', exceptions: ['no custom event type named "bad name"'] },
      ],
    });
    expect((await h.call('GET', ade, { token: T.oauthStd })).body).toEqual({ items: [] });
    // Required: without a name, a 400 that says so.
    for (const query of ['', 'event_names=', 'names=ade_one']) {
      const r = await del(query);
      expect(r.status, query).toBe(400);
      expect(r.body.details, query).toEqual([
        { path: 'query.event_names', problem: 'is missing; send event_names' },
      ]);
    }
  });
});

describe('C91 conversion deletion requests', () => {
  test("removes the user's events from storage, the admin API and the request log; answers Pinterest's shapes", async () => {
    const jane = event(h.nowS(), { event_id: 'jane-1' });
    const byClick = event(h.nowS(), { event_id: 'click-1' });
    (byClick.user_data as Record<string, unknown>).em = [sha256('sam@example.com')];
    (byClick.user_data as Record<string, unknown>).click_id = 'epik-of-sam';
    const other = event(h.nowS(), { event_id: 'other-1' });
    (other.user_data as Record<string, unknown>).em = [sha256('kim@example.com')];
    (other.user_data as Record<string, unknown>).click_id = 'epik-of-kim';
    // The log's key is the server's id (C118), the answer's x-pinterest-rid.
    const rid = (r: { headers: Headers }) => r.headers.get('x-pinterest-rid') as string;
    const reqJane = rid(await h.send(A, T.convA, [jane]));
    const reqTwo = rid(await h.send(A, T.convA, [byClick, other]));
    const reqKim = rid(await h.send(A, T.convA, [other]));

    const created = await h.call('POST', cdr, {
      token: T.oauthStd,
      // A plain address (hashed on arrival, C5) and an EPIK.
      body: { deletion_targets: { user_emails: ['  Jane@Example.com '], epiks: ['epik-of-sam'] } },
    });
    expect(created.status).toBe(201);
    // C121: Pinterest's shapes, a numeric id and the UTC day (the harness clock is 2026-03-02T12:00Z).
    expect(created.body).toEqual({
      request_id: expect.stringMatching(/^\d{1,18}$/),
      status: 'SUBMITTED',
      created_time: '2026-03-02',
      processed_time: '2026-03-02',
    });

    const stored = await h.call('GET', `/admin/events?ad_account_id=${A}`, { token: T.admin });
    expect(stored.body.items.map((i: { event_id: string }) => i.event_id)).toEqual(['other-1']);
    // The request log keeps the entries, without the bodies that held the users: no event is shown.
    const events = async (id: string) =>
      (await h.call('GET', `/admin/requests/${id}`, { token: T.admin })).body.items.map(
        (i: { event: { event_id: string } | null; status: string }) => [i.event?.event_id ?? null, i.status],
      );
    expect(await events(reqJane)).toEqual([[null, 'processed']]);
    expect(await events(reqTwo)).toEqual([
      [null, 'processed'],
      [null, 'processed'],
    ]);
    expect(await events(reqKim)).toEqual([['other-1', 'processed']]);
    // The plain address is kept nowhere the admin API reads.
    expect(JSON.stringify(await h.call('GET', '/admin/requests', { token: T.admin }))).not.toContain('Jane@');

    // The dedup sighting went too: the same event is new again.
    const again = await h.send(A, T.convA, [jane]);
    expect(again.body.events[0]).toEqual({ status: 'processed', error_message: null, warning_message: null });

    const id = created.body.request_id;
    expect((await h.call('GET', `${cdr}/${id}`, { token: T.oauthReadOnly })).body).toEqual(created.body);
    expect((await h.call('GET', cdr, { token: T.oauthStd })).body).toEqual({
      items: [created.body],
      bookmark: null,
    });
    const cancel = await h.call('DELETE', `${cdr}/${id}`, { token: T.oauthStd });
    expect(cancel.status).toBe(409);
    // An id never given, one of another form (the UUIDs of earlier versions), another account's: 404.
    for (const other of [
      `${BigInt(id) + 1n}`,
      `0${id}`,
      '00000000-0000-0000-0000-000000000000',
      '9'.repeat(18),
    ]) {
      const unknown = await h.call('GET', `${cdr}/${other}`, { token: T.oauthStd });
      expect(unknown.status, other).toBe(404);
    }
    const elsewhere = await h.call('DELETE', `/v5/ad_accounts/${B}/conversion_deletion_requests/${id}`, {
      token: T.oauthBob,
    });
    expect(elsewhere.status).toBe(404);
  });

  test('a request naming nobody is a 400; a conversion token may not delete', async () => {
    const empty = await h.call('POST', cdr, { token: T.oauthStd, body: { deletion_targets: {} } });
    expect(empty.status).toBe(400);
    expect(empty.body.details).toEqual([
      {
        path: 'deletion_targets',
        problem: 'names no user; send user_emails, epiks or both, with at least one entry',
      },
    ]);
    const conv = await h.call('POST', cdr, {
      token: T.convA,
      body: { deletion_targets: { epiks: ['x'] } },
    });
    expect(conv.status).toBe(403);
  });
});

describe('C121 deletion request ids', () => {
  const sharedStore = async (): Promise<{ url: string; drop(): Promise<void> }> => {
    if (process.env.EVENTS_TEST_STORE === 'postgres') return createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'ems-cdr-'));
    return {
      url: `sqlite:${join(dir, 'events.db')}`,
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  };
  const create = (s: Harness, epik: string) =>
    s.call('POST', cdr, { token: T.oauthStd, body: { deletion_targets: { epiks: [epik] } } });
  const ids = async (s: Harness) =>
    (await s.call('GET', cdr, { token: T.oauthStd })).body.items.map(
      (i: { request_id: string }) => i.request_id,
    );

  test("two servers on one store never give one id twice, read each other's requests, and a restart goes on", async () => {
    const store = await sharedStore();
    const one = await startHarness({ storeUrl: store.url });
    const two = await startHarness({ storeUrl: store.url });
    const made: string[] = [];
    try {
      // At the same instant on both clocks, at once.
      const answers = await Promise.all([0, 1, 2, 3].map((i) => create(i % 2 ? two : one, `epik-${i}`)));
      for (const a of answers) {
        expect(a.status).toBe(201);
        made.push(a.body.request_id);
      }
      expect(new Set(made).size).toBe(4);
      const sorted = [...made].sort((x, y) => (BigInt(y) > BigInt(x) ? 1 : -1));
      expect(await ids(one)).toEqual(sorted);
      expect(await ids(two)).toEqual(sorted);
      const viaTwo = await two.call('GET', `${cdr}/${made[0]}`, { token: T.oauthStd });
      expect(viaTwo.body).toEqual(answers[0]?.body);
    } finally {
      await one.close();
      await two.close();
    }
    // A restart, its clock back at the same instant: the requests are still there, the next id is new.
    const again = await startHarness({ storeUrl: store.url });
    try {
      const next = await create(again, 'epik-after');
      expect(next.status).toBe(201);
      expect(made).not.toContain(next.body.request_id);
      expect(made.every((m) => BigInt(next.body.request_id) > BigInt(m))).toBe(true);
      expect((await ids(again)).length).toBe(5);
      // The admin reset deletes the requests, not the counter: an id is never given again.
      expect((await again.call('POST', '/admin/reset', { token: T.admin })).status).toBe(204);
      expect(await ids(again)).toEqual([]);
      const afterReset = await create(again, 'epik-after-reset');
      expect(BigInt(afterReset.body.request_id)).toBeGreaterThan(BigInt(next.body.request_id));
    } finally {
      await again.close();
      await store.drop();
    }
  });

  test('a store kept in memory gives ids above those of before its restart (the time base)', async () => {
    const before = await startHarness({ storeUrl: ':memory:' });
    const first = (await create(before, 'epik-1')).body.request_id as string;
    await before.close();
    const clock = new ManualClock(T0 + 1);
    const after = await startHarness({ storeUrl: ':memory:', clock });
    try {
      const second = (await create(after, 'epik-2')).body.request_id as string;
      expect(BigInt(second)).toBeGreaterThan(BigInt(first));
      expect(second).toMatch(/^\d{16}$/);
    } finally {
      await after.close();
    }
  });
});
