// C10: custom event types per ad account (OAuth with ads:write), unique case-insensitively, at most 15.
import { CUSTOM_EVENT_NAME_RULE } from '@org/events-types';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { A, B, event, T } from './support/fixtures.js';
import { type Harness, startHarness } from './support/server.js';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const path = (account = A) => `/v5/ad_accounts/${account}/custom_event_types`;
/** `mapped` undefined leaves mapped_event_name out of the body. */
const create = (name: unknown, mapped: unknown, token: string = T.oauthStd, account = A) =>
  h.call('POST', path(account), {
    token,
    body: mapped === undefined ? { name } : { name, mapped_event_name: mapped },
  });

describe('C10 custom event types', () => {
  test('create, list, delete', async () => {
    const c = await create('Quiz_Completed', 'lead');
    expect(c.status).toBe(201);
    expect(c.body).toEqual({ name: 'Quiz_Completed', mapped_event_name: 'lead', created_at: h.nowS() });
    const l = await h.call('GET', path(), { token: T.oauthStd });
    expect(l.status).toBe(200);
    expect(l.body).toEqual({ items: [c.body], max_items: CUSTOM_EVENT_NAME_RULE.maxPerAccount });
    // Deleted case-insensitively.
    expect((await h.call('DELETE', `${path()}/quiz_completed`, { token: T.oauthStd })).status).toBe(204);
    expect((await h.call('GET', path(), { token: T.oauthStd })).body.items).toEqual([]);
    const again = await h.call('DELETE', `${path()}/quiz_completed`, { token: T.oauthStd });
    expect(again.status).toBe(404);
    expect(again.body.details[0].problem).toContain('quiz_completed');
  });

  test('names are unique case-insensitively (409)', async () => {
    expect((await create('Promo_View', 'lead')).status).toBe(201);
    const dup = await create('PROMO_VIEW', 'lead');
    expect(dup.status).toBe(409);
    expect(dup.body.details[0].problem).toContain('Promo_View');
  });

  test(`the ${CUSTOM_EVENT_NAME_RULE.maxPerAccount + 1}th is refused with a clear error; deleting one makes room`, async () => {
    for (let i = 1; i <= CUSTOM_EVENT_NAME_RULE.maxPerAccount; i++)
      expect((await create(`custom_${i}`, 'lead')).status).toBe(201);
    const over = await create('one_too_many', 'lead');
    expect(over.status).toBe(409);
    expect(over.body.details[0].problem).toContain(
      `holds ${CUSTOM_EVENT_NAME_RULE.maxPerAccount} custom event types already`,
    );
    // Per account: another account still has room.
    expect((await create('one_too_many', 'lead', T.oauthBob, B)).status).toBe(201);
    await h.call('DELETE', `${path()}/custom_1`, { token: T.oauthStd });
    expect((await create('one_too_many', 'lead')).status).toBe(201);
  });

  test('bad bodies are 400 with the field path', async () => {
    const long = 'a'.repeat(CUSTOM_EVENT_NAME_RULE.maxLength + 1);
    for (const [name, mapped, field] of [
      ['has space', 'lead', 'name'],
      ['', 'lead', 'name'],
      [long, 'lead', 'name'],
      [42, 'lead', 'name'],
      ['ok_name', 'purchase', 'mapped_event_name'],
      ['ok_name', undefined, 'mapped_event_name'],
      ['Checkout', 'checkout', 'name'],
      ['Custom', 'lead', 'name'], // C20: Pinterest's generic name is taken
    ] as const) {
      const r = await create(name, mapped);
      expect(r.status, `${String(name)} -> ${String(mapped)}`).toBe(400);
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(field);
    }
    const extra = await h.call('POST', path(), {
      token: T.oauthStd,
      body: { name: 'x', mapped_event_name: 'lead', color: 'red' },
    });
    expect(extra.status).toBe(400);
    expect(extra.body.details[0].path).toBe('color');
    expect(
      (await h.call('POST', path(), { token: T.oauthStd, raw: 'name=x', contentType: 'text/plain' })).status,
    ).toBe(415);
  });

  test('OAuth with ads:write only: a conversion token is 403, a read-only token is 403, no token 401', async () => {
    const conv = await create('x_1', 'lead', T.convA);
    expect(conv.status).toBe(403);
    expect(conv.body.details[0].problem).toContain('events endpoint only');
    expect((await create('x_1', 'lead', T.oauthReadOnly)).status).toBe(403);
    expect((await h.call('GET', path(), { token: T.oauthReadOnly })).status).toBe(403);
    expect((await h.call('GET', path())).status).toBe(401);
    expect((await create('x_1', 'lead', T.oauthStd, B)).status).toBe(403);
  });

  test('a registered name is a valid event_name for that account only, case-insensitively, usable for audiences', async () => {
    await create('Quiz_Completed', 'lead');
    const ok = await h.send(A, T.convA, [event(h.nowS(), { event_name: 'quiz_completed', event_id: 'q1' })]);
    expect(ok.body.events[0].status).toBe('processed');
    const stored = (await h.call('GET', '/admin/events?event_id=q1', { token: T.admin })).body.items;
    expect(stored[0]).toMatchObject({
      event_name: 'Quiz_Completed',
      usage: [...CUSTOM_EVENT_NAME_RULE.usableFor],
    });
    const other = await h.send(B, T.convB, [event(h.nowS(), { event_name: 'Quiz_Completed' })]);
    expect(other.body.events[0].status).toBe('failed');
    await h.call('DELETE', `${path()}/Quiz_Completed`, { token: T.oauthStd });
    const after = await h.send(A, T.convA, [event(h.nowS(), { event_name: 'Quiz_Completed' })]);
    expect(after.body.events[0].status).toBe('failed');
  });
});
