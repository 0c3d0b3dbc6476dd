// Issue 21: a tool written for Pinterest's API meets the same routes and shapes (C91, C92), over real HTTP.
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { A, event, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

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
    const when = new Date(h.nowS() * 1000).toISOString();
    expect(created.body).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'SUBMITTED',
      created_time: when,
      processed_time: when,
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
    const unknown = await h.call('GET', `${cdr}/00000000-0000-0000-0000-000000000000`, { token: T.oauthStd });
    expect(unknown.status).toBe(404);
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
