// The thread side of ThreadedSqliteStore: owns one SqliteStore and runs the calls posted to it, in order.
import { parentPort, workerData } from 'node:worker_threads';
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

parentPort?.on('message', async (c: Call) => {
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
});
