// The request body every bench sends: complete, valid events with fresh event_ids per request.
import { createHash } from 'node:crypto';

const sha = (s: string) => createHash('sha256').update(s).digest('hex');
const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * What `user_data` carries: the digests of `em` and `external_id` (`default`), or, for the rows of an account
 * that hashes on arrival (C125), the same two as a sender that cannot hash sends them (`raw`) or as the
 * digests of their normalized forms (`pre-hashed`, the same digests as `default`), so the rows differ only by
 * the hashing.
 */
export type UserDataForm = 'default' | 'raw' | 'pre-hashed';

/** Raw user data of event `i`, and its C5 normalization (what a client hashes). */
function rawUserData(i: number): Record<string, [raw: string, normalized: string]> {
  return {
    em: [` User${i}@Example.com `, `user${i}@example.com`],
    external_id: [` customer-${i} `, `customer-${i}`],
  };
}

/**
 * The body as parts around the request number: joined with a fresh number per request, every event_id of
 * every request is unique. A valid, complete event (~0.8 KB), so the server does its full work per event.
 */
export function bodyParts(size: number, form: UserDataForm = 'default'): string[] {
  const now = Math.floor(Date.now() / 1000);
  const MARK = '@@REQ@@';
  const events = Array.from({ length: size }, (_, i) => ({
    event_name: i % 3 === 0 ? 'checkout' : i % 3 === 1 ? 'add_to_cart' : 'page_visit',
    action_source: 'web',
    event_time: now,
    event_id: `${MARK}-${i}`,
    event_source_url: 'https://shop.example.com/product/123',
    partner_name: 'direct',
    user_data: {
      ...(form === 'default'
        ? { em: [sha(`user${i}@example.com`)], external_id: [sha(`customer-${i}`)] }
        : Object.fromEntries(
            Object.entries(rawUserData(i)).map(([k, [raw, normalized]]) => [
              k,
              [form === 'raw' ? raw : sha(normalized)],
            ]),
          )),
      click_id: 'dj0yJnU9b2JDcFFHekV4SHJNcmVrbFBkUEdqakh0akdUT1VjVVUm',
      client_ip_address: '203.0.113.7',
      client_user_agent: UA,
    },
    custom_data: {
      currency: 'USD',
      value: '42.00',
      order_id: `order-${i}`,
      num_items: 2,
      content_ids: ['sku-1', 'sku-2'],
      contents: [
        { id: 'sku-1', item_price: '20.00', quantity: 1 },
        { id: 'sku-2', item_price: '22.00', quantity: 1 },
      ],
    },
  }));
  return JSON.stringify({ data: events }).split(MARK);
}
