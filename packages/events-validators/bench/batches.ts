/**
 * The benchmark batches (shared by validate.bench.ts and profile.ts): events built from the real integrator
 * payload shapes (per-user identifiers and IPs made unique per event, as in real traffic), all valid, or with
 * every n-th event replaced by a failing one.
 */
import { validateBatch } from '../src/index.js';
import { type Json, payloadFiles, readPayload, sha256 } from '../test/helpers.js';

/** Every event of every payload file that has a `data` array, by file name. */
function loadPayloadEvents(): Map<string, Json[]> {
  const out = new Map<string, Json[]>();
  for (const f of payloadFiles()) {
    const body = readPayload(f);
    if (Array.isArray(body.data)) out.set(f, body.data as Json[]);
  }
  return out;
}

/** The clock of the benchmark (every event_time is made fresh relative to it). */
export const NOW = 1_753_300_000;

/** Valid shapes: the processed events of the corpus (07 with its URL typo fixed, C4). */
function validShapes(): Json[] {
  const events = loadPayloadEvents();
  const pick = (f: string) => events.get(f) ?? [];
  const shapes: Json[] = [
    ...pick('01-rudderstack-router-v5-batch-multiplexed.json').slice(0, 3),
    ...pick('06-segment-latest-app-ios-app-install.json'),
    ...pick('07-pinterest-openapi-example-app-ios-full.json').map((e) => ({
      ...e,
      event_source_url: 'https://www.my-clothing-shop.org/',
    })),
    ...pick('08-woocommerce-checkout-web-raw-email-hash.json'),
    ...pick('10-stape-sgtm-ga4-purchase-web.json'),
    ...pick('11-posthog-product-viewed-web-unicode-contents.json'),
    ...pick('15-activepieces-offline-checkout-store-sale.json'),
    ...pick('16-rudderstack-v5-app-android-add-to-cart.json'),
    ...pick('17-mistakes-mixed-batch.json').slice(0, 1),
    ...pick('18-lead-ldp-opt-out-california.json'),
  ];
  if (shapes.length === 0)
    throw new Error('the integrator payloads are missing: fixtures/integrator-payloads');
  return shapes;
}

/** Invalid shapes: the failing events of payload 17 (one documented mistake each) and 12, 13, 14. */
function invalidShapes(): Json[] {
  const events = loadPayloadEvents();
  return [
    ...(events.get('17-mistakes-mixed-batch.json') ?? []).slice(1),
    ...(events.get('12-adobe-edge-custom-unhashed-maids-wrong-content-keys.json') ?? []),
    ...(events.get('14-edgee-page-visit-scalar-hashes-extra-custom-keys.json') ?? []),
  ];
}

/** Per-user identifiers differ from event to event, as in real traffic; attributes (city, country...) repeat. */
const PER_USER: Record<string, (i: number, k: number) => string> = {
  em: (i, k) => sha256(`user${i}.${k}@example.com`),
  ph: (i) => sha256(`1555${String(i).padStart(7, '0')}`),
  external_id: (i) => sha256(`customer-${i}`),
  hashed_maids: (i, k) => sha256(`maid-${i}-${k}`),
};

function personalize(e: Json, i: number): void {
  const u = e.user_data;
  if (typeof u !== 'object' || u === null) return;
  const ud = u as Json;
  for (const [field, make] of Object.entries(PER_USER)) {
    const v = ud[field];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string' && /^[0-9a-f]{64}$/.test(x)))
      ud[field] = v.map((_, k) => make(i, k));
  }
  if (typeof ud.client_ip_address === 'string' && /^\d+\.\d+\.\d+\.\d+$/.test(ud.client_ip_address))
    ud.client_ip_address = `198.51.${(i >> 8) & 255}.${i & 255}`;
}

/** A batch of `size` events as JSON text; every `invalidEvery`-th event fails (0: all valid). */
export function batchText(size: number, invalidEvery: number): string {
  const valid = validShapes();
  const invalid = invalidShapes();
  const data: Json[] = [];
  for (let i = 0; i < size; i++) {
    const bad = invalidEvery > 0 && i % invalidEvery === invalidEvery - 1;
    // Failing events take the failing shapes in turn (i % invalid.length would always pick the same one).
    const shape = bad ? invalid[Math.floor(i / invalidEvery) % invalid.length]! : valid[i % valid.length]!;
    const e: Json = structuredClone(shape);
    e.event_id = `bench-${i}`;
    if (typeof e.event_time === 'number' && e.event_time < 1e11 && e.event_time > 1e9)
      e.event_time = NOW - (i % 3600);
    personalize(e, i);
    data.push(e);
  }
  return JSON.stringify({ data });
}

/**
 * An extra row for readers, not the goal: the all-valid batch as validateBatch accepts it (values dropped by
 * warnings removed, such as user_data.fn and unusable user agents; normalized values stored), so nothing is
 * copied. Only the recommended-fields warnings remain (a missing field cannot be removed).
 */
export function cleanText(size: number): string {
  const r = validateBatch(JSON.parse(batchText(size, 0)), { now: NOW, currency: 'USD' });
  if (!r.ok) throw new Error('bench batch was refused');
  return JSON.stringify({ data: r.accepted });
}
