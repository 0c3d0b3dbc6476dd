// A validation thread of the pool (pool.ts): JSON.parse, the validators and the JSON of accepted events,
// off the event loop that serves HTTP and writes SQLite.
import { parentPort } from 'node:worker_threads';
import type { ValidationContext } from '@org/events-validators';
import { toWire } from './event-wire.js';
import { prepareBatch } from './prepare.js';

interface Task {
  id: number;
  raw: ArrayBuffer;
  ctx: ValidationContext;
  withJson: boolean;
}

parentPort?.on('message', (t: Task) => {
  try {
    const prepared = toWire(prepareBatch(Buffer.from(t.raw), t.ctx, t.withJson));
    parentPort?.postMessage({ id: t.id, prepared });
  } catch (e) {
    parentPort?.postMessage({ id: t.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  }
});
