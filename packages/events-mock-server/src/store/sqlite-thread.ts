// The thread side of ThreadedSqliteStore: owns one SqliteStore and runs the calls posted to it, in order (the
// deliverer's first).
import { type MessagePort, parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { fromWireBatch, type WireBatch } from './event-pack.js';
import { SqliteStore, type SqliteStoreOptions } from './sqlite-store.js';

interface Call {
  id: number;
  method: string;
  args: unknown[];
}

let store: SqliteStore;
try {
  store = new SqliteStore(workerData as SqliteStoreOptions);
  parentPort?.postMessage({ id: 0, value: store.description });
} catch (e) {
  parentPort?.postMessage({ id: 0, error: errorOf(e) });
}

function errorOf(e: unknown) {
  const err = e as { name?: string; code?: unknown; message?: string };
  return {
    name: err.name ?? 'Error',
    code: typeof err.code === 'string' ? err.code : undefined,
    message: err.message ?? String(e),
  };
}

async function run(c: Call): Promise<void> {
  try {
    const fn = (store as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[c.method];
    if (typeof fn !== 'function') throw new Error(`no store method ${c.method}`);
    // A batch arrives with its events packed (ThreadedSqliteStore.commitBatch); everything else as it was sent.
    const args = c.method === 'commitBatch' ? [fromWireBatch(c.args[0] as WireBatch)] : c.args;
    const value = await fn.apply(store, args);
    parentPort?.postMessage({ id: c.id, value });
  } catch (e) {
    parentPort?.postMessage({ id: c.id, error: errorOf(e) });
  }
}

/**
 * The calls waiting are taken at once, and the deliverer's claims and settlements run before the rest
 * (C114): under a steady load of batches, each of them would otherwise wait behind every batch posted
 * before it, and the outbox would fill faster than it drains. The deliverer's own calls keep their order.
 */
const OUTBOX_CALLS = new Set(['claimOutbox', 'settleOutbox']);
parentPort?.on('message', async (first: Call) => {
  const port = parentPort as MessagePort;
  const calls = [first];
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) calls.push(m.message as Call);
  for (const c of calls) if (OUTBOX_CALLS.has(c.method)) await run(c);
  for (const c of calls) if (!OUTBOX_CALLS.has(c.method)) await run(c);
});
