// Real PostgreSQL for tests (C45-C47): each caller gets a database of its own, dropped after. The machine's
// server is at 127.0.0.1:5432 with trust auth (PG_TEST_URL overrides); when it cannot be reached, the
// tests that need it say so on one visible line and skip; CI starts it first and fails without it (services.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { QUICK_RUN, serviceMissing } from './services.js';

const ADMIN_URL = process.env.PG_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let reachable: Promise<boolean> | undefined;

/** Whether the test server answers; prints once when it does not. */
export function postgresReachable(): Promise<boolean> {
  reachable ??= (async () => {
    if (QUICK_RUN) return false;
    const c = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return true;
    } catch (e) {
      return serviceMissing(
        `PostgreSQL at ${ADMIN_URL.replace(/:[^:@/]*@/, '@')}`,
        `is unreachable (${(e as Error).message})`,
      );
    } finally {
      await c.end().catch(() => {});
    }
  })();
  return reachable;
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database named ems_test_<random>; drop() terminates its connections and drops it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `ems_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    async drop() {
      const a = new pg.Client({ connectionString: ADMIN_URL });
      await a.connect();
      try {
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
