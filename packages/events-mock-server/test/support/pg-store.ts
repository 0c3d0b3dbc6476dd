// A PgStore on a database of its own, dropped when the store closes (the outbox and store suites open one
// per test).
import { PgStore } from '../../src/store/pg/pg-store.js';
import { createTestDatabase } from './postgres.js';

export async function openTestPgStore(poolSize = 6): Promise<{ store: PgStore; url: string }> {
  const db = await createTestDatabase();
  const store = await PgStore.open({ url: db.url, poolSize });
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await db.drop();
  };
  return { store, url: db.url };
}
