// Runnable: starts the mock server in this process (demo config, in memory), sends one good and one bad
// event, then reads the request log and injects a fault through the admin API, by operation id (C106).
//   npx -y pnpm@10.34.8 --filter @org/events-client-e2e example:admin

import { createAdminClient, createClient, EventsApiError } from '@org/events-client';
import { startServer } from '@org/events-mock-server';

const server = await startServer({ port: 0, db: ':memory:', docs: false });
const demo = server.demo!;
const now = Math.floor(Date.now() / 1000);
await createClient({
  baseUrl: server.url,
  token: demo.conversionToken,
  adAccountId: demo.adAccountId,
}).sendEvents(
  [
    {
      event_name: 'checkout',
      action_source: 'web',
      event_time: now,
      event_id: 'o-1',
      user_data: { em: 'a@b.co' },
    },
    {
      event_name: 'subscription',
      action_source: 'web',
      event_time: now,
      event_id: 'o-2',
      user_data: { em: 'a@b.co' },
    },
  ],
  { hash: true },
);

const admin = createAdminClient({ baseUrl: server.url, token: demo.adminToken });
const page = await admin.call('admin/requests/list', { query: { outcome: 'failed', limit: 10 } });
const detail = await admin.call('admin/requests/get', { path: { request_id: page.items[0]!.request_id } });
for (const item of detail.items) console.log(item.index, item.status, item.fields.join(' '));
const fault = await admin.call('admin/faults/create', { body: { kind: 'rate_limited', count: 1 } });
console.log('fault', fault.kind, fault.remaining);
console.log(
  admin.url('admin/requests/export', { query: { format: 'csv', status: 200 } }).replace(server.url, ''),
);
try {
  await admin.call('admin/faults/delete', { path: { fault_id: 'no-such-fault' } });
} catch (e) {
  if (e instanceof EventsApiError) console.log('error', e.status, e.kind, e.details[0]?.problem);
}
await server.close();
