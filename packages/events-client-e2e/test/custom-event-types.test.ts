// The custom event type operations (C10) through the client, with the OAuth token; a conflict is a typed,
// final error.

import { createClient, EventsApiError } from '@org/events-client';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { demoServer, recordingFetch } from './support/server.js';

let s: Awaited<ReturnType<typeof demoServer>>;
beforeAll(async () => {
  s = await demoServer();
});
afterAll(() => s.close());

test('create, list, conflict (409, not retried), delete, then a missing one (404)', async () => {
  const { fetch, seen } = recordingFetch();
  const client = createClient({
    baseUrl: s.url,
    token: s.creds.oauthToken,
    adAccountId: s.creds.adAccountId,
    fetch,
  });
  const made = await client.customEventTypes.create({
    name: 'newsletter_signup',
    mapped_event_name: 'signup',
  });
  expect([made.name, made.mapped_event_name]).toEqual(['newsletter_signup', 'signup']);
  expect((await client.customEventTypes.list()).items.map((t) => t.name)).toEqual(['newsletter_signup']);
  const conflict = await client.customEventTypes
    .create({ name: 'Newsletter_Signup', mapped_event_name: 'signup' })
    .catch((e: unknown) => e);
  expect(conflict).toBeInstanceOf(EventsApiError);
  expect([(conflict as EventsApiError).status, (conflict as EventsApiError).kind]).toEqual([409, 'conflict']);
  await client.customEventTypes.delete('newsletter_signup');
  const missing = (await client.customEventTypes
    .delete('newsletter_signup')
    .catch((e: unknown) => e)) as EventsApiError;
  expect([missing.status, missing.kind, missing.details[0]?.problem]).toEqual([
    404,
    'not_found',
    'no custom event type named "newsletter_signup"',
  ]);
  expect(seen.map((r) => r.status)).toEqual([201, 200, 409, 204, 404]);
});
