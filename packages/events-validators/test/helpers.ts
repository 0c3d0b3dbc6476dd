import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The clock of every test (C4 freshness is relative to it): 2025-07-23T08:00:00Z plus one hour. */
export const NOW = 1_753_261_200;

/** SHA-256 hex with node:crypto: the oracle for hashes in tests. */
export const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export const EM = sha256('buyer@example.com');
export const UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

export type Json = Record<string, unknown>;

/**
 * A web checkout carrying every field the spec recommends for it (x-recommended), so it is processed with
 * no warning at all; tests change one thing and look at what that change reports.
 */
export function validEvent(): Json {
  return {
    action_source: 'web',
    event_id: 'order-1',
    event_name: 'checkout',
    event_time: NOW - 60,
    event_source_url: 'https://shop.example.com/checkout/thank-you?epik=abc',
    user_data: {
      em: [EM],
      external_id: [sha256('customer-1')],
      click_id: 'dj0yJnU9aEtxZ0xRbGZuVDJ3',
      client_ip_address: '198.51.100.10',
      client_user_agent: UA,
    },
    custom_data: {
      currency: 'USD',
      value: '42.00',
      content_ids: ['sku-1'],
      num_items: 1,
      order_id: 'A-1000',
      contents: [{ id: 'sku-1', item_price: '42.00', quantity: 1 }],
    },
  };
}

/** The integrator corpus of the repository (fixtures/integrator-payloads, see its README). */
export const PAYLOAD_DIR = new URL('../../../fixtures/integrator-payloads/', import.meta.url);

/** The corpus files, sorted; throws when the folder is missing, so no test silently runs on nothing. */
export function payloadFiles(): string[] {
  return readdirSync(fileURLToPath(PAYLOAD_DIR))
    .filter((f) => f.endsWith('.json'))
    .sort();
}

export function readPayload(file: string): Json {
  return JSON.parse(readFileSync(new URL(file, PAYLOAD_DIR), 'utf8')) as Json;
}
