// Drives one mock server (started separately) for profiling.
import autocannon from 'autocannon';
import { createHash } from 'node:crypto';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const now = Math.floor(Date.now() / 1000);
const MARK = '@@REQ@@';
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const parts = JSON.stringify({ data: Array.from({ length: Number(process.env.N ?? 1000) }, (_, i) => ({ event_name: 'checkout', action_source: 'web', event_time: now, event_id: `${MARK}-${i}`, event_source_url: 'https://shop.example.com/product/123', partner_name: 'direct', user_data: { em: [sha(`user${i}@example.com`)], external_id: [sha(`customer-${i}`)], click_id: 'dj0yJnU9b2JDcFFHekV4SHJNcmVrbFBkUEdqakh0akdUT1VjVVUm', client_ip_address: '203.0.113.7', client_user_agent: UA }, custom_data: { currency: 'USD', value: '42.00', order_id: `order-${i}`, num_items: 2, content_ids: ['sku-1', 'sku-2'], contents: [{ id: 'sku-1', item_price: '20.00', quantity: 1 }, { id: 'sku-2', item_price: '22.00', quantity: 1 }] } })) }).split(MARK);
let n = 0;
const r = await autocannon({ url: process.argv[2]!, connections: 10, duration: 8, requests: [{ method: 'POST', path: '/v5/ad_accounts/549755885175/events' + (process.argv[3] ?? ''), headers: { 'content-type': 'application/json' }, setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer bench-conversion-token-${n % 4000}` }, body: parts.join(`p${n++}`) }) }] });
console.log('req/s', r.requests.average, 'p99', r.latency.p99, 'non2xx', r.non2xx);
