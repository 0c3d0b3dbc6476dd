/**
 * For profiling (`node --conditions=@org/source --import tsx --cpu-prof bench/profile.ts`): validateBatch in a
 * loop over one bench batch. PROFILE_SIZE (1000), PROFILE_INVALID_EVERY (0: all valid; 10: 10% invalid) and
 * PROFILE_MS (5000) choose the batch and the time.
 */
import { validateBatch } from '../src/index.js';
import { batchText, NOW } from './batches.js';

const size = Number(process.env.PROFILE_SIZE ?? 1000);
const body = JSON.parse(batchText(size, Number(process.env.PROFILE_INVALID_EVERY ?? 0))) as unknown;
const ms = Number(process.env.PROFILE_MS ?? 5000);
let n = 0;
let sink = 0;
const start = performance.now();
while (performance.now() - start < ms) {
  const r = validateBatch(body, { now: NOW, currency: 'USD' });
  if (r.ok) sink += r.response.num_events_processed;
  n++;
}
console.log(
  `${n} batches of ${size}, ${((performance.now() - start) * 1000) / (n * size)} µs per event (${sink})`,
);
