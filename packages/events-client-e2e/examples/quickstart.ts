// Runnable: starts the mock server in this process (demo config, in memory), then sends events with the
// client: raw user data hashed, checked locally, batched, retried, one result per event.
//   npx -y pnpm@10.34.8 --filter @org/events-client-e2e example

import { createClient, EventsApiError } from '@org/events-client';
import { startServer } from '@org/events-mock-server';

const server = await startServer({ port: 0, db: ':memory:', docs: false });
const demo = server.demo!;
const client = createClient({
  baseUrl: server.url,
  token: demo.conversionToken,
  adAccountId: demo.adAccountId,
});
const now = Math.floor(Date.now() / 1000);
const results = await client.sendEvents(
  [
    {
      event_name: 'checkout',
      action_source: 'web',
      event_time: now,
      event_id: 'order-1',
      user_data: {
        em: ' Jane@Example.com ',
        client_ip_address: '203.0.113.24',
        client_user_agent: 'Mozilla/5.0',
      },
      custom_data: { currency: 'USD', value: '42.00' },
    },
    {
      event_name: 'subscription',
      action_source: 'web',
      event_time: now,
      event_id: 'x-2',
      user_data: { em: 'a@b.co' },
    },
  ],
  { hash: true, validate: true },
);
for (const r of results) console.log(r.index, r.status, r.errorMessage ?? '');
try {
  await createClient({
    baseUrl: server.url,
    token: 'wrong',
    adAccountId: demo.adAccountId,
  }).customEventTypes.list();
} catch (e) {
  if (e instanceof EventsApiError) console.log('error', e.status, e.kind, e.body.message);
}
await server.close();
