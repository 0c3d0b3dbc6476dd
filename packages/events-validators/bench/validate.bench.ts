/**
 * pnpm bench: events/s of JSON.parse alone, of ajv compiled from the same OpenAPI schemas (structural checks
 * only: the generated json-schema.gen.ts), and of validateBatch (every rule of C2-C6), on 1000-event batches
 * built from the real integrator payload shapes (per-user identifiers and IPs made unique per event, as in
 * real traffic): all valid, and 10% invalid (the goal rows), and the valid batch as accepted (an extra row,
 * see cleanText). Prints the ratio validateBatch / ajv (goal: >= 1.0 on the first two).
 */
import { Ajv } from 'ajv';
import { CONVERSION_EVENT_JSON_SCHEMA } from '../src/generated/json-schema.gen.js';
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

const NOW = 1_753_300_000;
const BATCH = 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 400);

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

function batchText(invalidEvery: number): string {
  const valid = validShapes();
  const invalid = invalidShapes();
  const data: Json[] = [];
  for (let i = 0; i < BATCH; i++) {
    const bad = invalidEvery > 0 && i % invalidEvery === invalidEvery - 1;
    const shape = bad ? invalid[i % invalid.length]! : valid[i % valid.length]!;
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
function cleanText(): string {
  const r = validateBatch(JSON.parse(batchText(0)), { now: NOW, currency: 'USD' });
  if (!r.ok) throw new Error('bench batch was refused');
  return JSON.stringify({ data: r.accepted });
}

/**
 * Events per CPU-second of `fn` over one batch, run for about ROUND_MS of wall time. CPU time (user + system
 * of this process) rather than wall time, so other work on a shared machine does not count against us.
 */
function rate(fn: () => void): number {
  let n = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < ROUND_MS) {
    fn();
    n++;
  }
  const used = process.cpuUsage(cpu);
  return (n * BATCH * 1e6) / (used.user + used.system);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The machine may be shared: each round measures the three in turn, so a load change hits all three, and
 * the ratio is the median of the per-round ratios.
 */
function measure(parse: () => void, ajvFn: () => void, ours: () => void) {
  for (let k = 0; k < 30; k++) {
    parse();
    ajvFn();
    ours();
  }
  const rounds = { parse: [] as number[], ajv: [] as number[], ours: [] as number[], ratio: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    rounds.parse.push(rate(parse));
    const a = rate(ajvFn);
    const o = rate(ours);
    rounds.ajv.push(a);
    rounds.ours.push(o);
    rounds.ratio.push(o / a);
  }
  return {
    parse: median(rounds.parse),
    ajv: median(rounds.ajv),
    ours: median(rounds.ours),
    ratio: median(rounds.ratio),
  };
}

const ajv = new Ajv({ allowUnionTypes: true });
const structural = ajv.compile(CONVERSION_EVENT_JSON_SCHEMA);
const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')}`.padStart(12);

console.log(
  `node ${process.version}, ${BATCH}-event batches, events per CPU-second, median of ${ROUNDS} interleaved rounds of ${ROUND_MS} ms`,
);
console.log(
  'batch             JSON.parse events/s   ajv events/s   validateBatch events/s   validateBatch/ajv',
);
for (const [label, makeText] of [
  ['all valid', () => batchText(0)],
  ['10% invalid', () => batchText(10)],
  ['clean (extra)', cleanText],
] as const) {
  const text = makeText();
  const body = JSON.parse(text) as { data: unknown[] };
  const check = validateBatch(body, { now: NOW, currency: 'USD' });
  if (!check.ok) throw new Error('bench batch was refused');
  const failed = check.response.num_events_received - check.response.num_events_processed;
  let sink = 0;
  const m = measure(
    () => {
      sink += (JSON.parse(text) as { data: unknown[] }).data.length;
    },
    () => {
      for (const e of body.data) if (structural(e)) sink++;
    },
    () => {
      const r = validateBatch(body, { now: NOW, currency: 'USD' });
      if (r.ok) sink += r.response.num_events_processed;
    },
  );
  console.log(
    `${label.padEnd(13)} ${fmt(m.parse)}         ${fmt(m.ajv)}   ${fmt(m.ours)}             ${m.ratio.toFixed(2)}   (${failed} failed${sink > 0 ? '' : '!'})`,
  );
}
