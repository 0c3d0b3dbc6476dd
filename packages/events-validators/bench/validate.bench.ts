/**
 * pnpm bench: events/s of JSON.parse alone, of ajv compiled from the same OpenAPI schemas (structural checks
 * only: the generated json-schema.gen.ts), and of validateBatch (every rule of C2-C6), on batches of 100 and
 * 1000 events built from the real integrator payload shapes (bench/batches.ts; per-user identifiers and IPs
 * made unique per event, as in real traffic): all valid, and 10% invalid (the goal rows), and the valid batch
 * as accepted (an extra row, see cleanText). Prints the ratio validateBatch / ajv (goal: >= 1.0 on the goal
 * rows) and the CPU time per event of both. BENCH_SIZES (default `100,1000`), BENCH_ROUNDS (7) and
 * BENCH_ROUND_MS (400) change the run.
 */
import { Ajv } from 'ajv';
import { CONVERSION_EVENT_JSON_SCHEMA } from '../src/generated/json-schema.gen.js';
import { validateBatch } from '../src/index.js';
import { batchText, cleanText, NOW } from './batches.js';

const SIZES = (process.env.BENCH_SIZES ?? '100,1000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ROUND_MS = Number(process.env.BENCH_ROUND_MS ?? 400);

/**
 * Events per CPU-second of `fn` over one batch of `size` events, run for about ROUND_MS of wall time. CPU time
 * (user + system of this process) rather than wall time, so other work on a shared machine does not count.
 */
function rate(fn: () => void, size: number): number {
  let n = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  while (performance.now() - start < ROUND_MS) {
    fn();
    n++;
  }
  const used = process.cpuUsage(cpu);
  return (n * size * 1e6) / (used.user + used.system);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The machine may be shared: each round measures the three in turn, so a load change hits all three, and
 * the ratio is the median of the per-round ratios.
 */
function measure(size: number, parse: () => void, ajvFn: () => void, ours: () => void) {
  const warmup = Math.max(30, 30_000 / size);
  for (let k = 0; k < warmup; k++) {
    parse();
    ajvFn();
    ours();
  }
  const rounds = { parse: [] as number[], ajv: [] as number[], ours: [] as number[], ratio: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    rounds.parse.push(rate(parse, size));
    const a = rate(ajvFn, size);
    const o = rate(ours, size);
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
const fmt = (n: number) => `${Math.round(n).toLocaleString('en-US')}`.padStart(9);
const us = (eventsPerSecond: number) => (1e6 / eventsPerSecond).toFixed(2).padStart(5);

console.log(
  `node ${process.version}, events per CPU-second (and CPU µs per event), median of ${ROUNDS} interleaved rounds of ${ROUND_MS} ms`,
);
console.log(
  'events  batch          JSON.parse/s        ajv/s (µs/ev)   validateBatch/s (µs/ev)   validateBatch/ajv',
);
for (const size of SIZES) {
  for (const [label, makeText] of [
    ['all valid', () => batchText(size, 0)],
    ['10% invalid', () => batchText(size, 10)],
    ['clean (extra)', () => cleanText(size)],
  ] as const) {
    const text = makeText();
    const body = JSON.parse(text) as { data: unknown[] };
    const check = validateBatch(body, { now: NOW, currency: 'USD' });
    if (!check.ok) throw new Error('bench batch was refused');
    const failed = check.response.num_events_received - check.response.num_events_processed;
    let sink = 0;
    const m = measure(
      size,
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
      `${String(size).padStart(6)}  ${label.padEnd(13)} ${fmt(m.parse)}   ${fmt(m.ajv)} (${us(m.ajv)})       ${fmt(m.ours)} (${us(m.ours)})                ${m.ratio.toFixed(2)}   (${failed} failed${sink > 0 ? '' : '!'})`,
    );
  }
}
