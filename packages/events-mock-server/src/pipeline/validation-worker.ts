// A validation thread of the pool (pool.ts): JSON.parse, the validators and the JSON of accepted events,
// off the event loop that serves HTTP and writes SQLite.
import type { ValidationContext } from '@org/events-validators';
import { serve, Transfer } from '../threads/serve.js';
import { toWire, transferList } from './event-wire.js';
import { prepareBatch } from './prepare.js';

serve((method, args) => {
  if (method !== 'prepare') throw new Error(`no validation method ${method}`);
  const [raw, ctx, withJson] = args as [ArrayBuffer, ValidationContext, boolean];
  const wire = toWire(prepareBatch(Buffer.from(raw), ctx, withJson));
  return new Transfer(wire, transferList(wire));
});
