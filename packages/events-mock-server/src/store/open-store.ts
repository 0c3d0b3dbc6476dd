import { loadOptional } from '../core/optional-package.js';
import type { Store } from './interface/store.js';
import { SqliteStore, type SynchronousLevel } from './sqlite/sqlite-store.js';
import type { StoreLocation } from './store-url.js';
import { ThreadedSqliteStore } from './threaded-store.js';

export interface OpenStoreOptions {
  /** PRAGMA synchronous of an SQLite store (FULL by default). */
  synchronous?: SynchronousLevel;
  /** SQLite on a thread of its own (default: yes for a file, no for `:memory:`). */
  storeThread?: boolean;
  /** PostgreSQL connections of this process at most (default 10). */
  poolSize?: number;
  /** PostgreSQL batch calls at once (default 2, C83). */
  commitCalls?: number;
  /** Errors of idle PostgreSQL connections, for the log. */
  onIdleError?: (e: Error) => void;
}

/** Opens the store a location names (C47); rejects with the reason when it cannot be used. */
export async function openStore(location: StoreLocation, o: OpenStoreOptions = {}): Promise<Store> {
  if (location.kind === 'postgres') {
    // Loaded only when named: a SQLite server does not carry pg's code in its memory.
    const { PgStore } = await loadOptional(() => import('./pg/pg-store.js'), 'pg', 'a postgres:// store');
    return PgStore.open({
      url: location.url,
      ...(o.poolSize !== undefined ? { poolSize: o.poolSize } : {}),
      ...(o.commitCalls !== undefined ? { commitCalls: o.commitCalls } : {}),
      ...(o.onIdleError ? { onIdleError: o.onIdleError } : {}),
    });
  }
  const sqlite = { path: location.path, synchronous: o.synchronous ?? 'FULL' } as const;
  return (o.storeThread ?? location.path !== ':memory:')
    ? ThreadedSqliteStore.open(sqlite)
    : new SqliteStore(sqlite);
}
