// A PostgreSQL database of its own for each bench row, dropped after.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The admin URL when the server answers; null (and a line on stderr) when it does not. */
export async function pgReachable(url: string): Promise<string | null> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    return url;
  } catch (e) {
    process.stderr.write(
      `PostgreSQL at ${url} does not answer (${(e as Error).message}): no PostgreSQL rows\n`,
    );
    return null;
  } finally {
    await c.end().catch(() => {});
  }
}

export async function createBenchDatabase(
  adminUrl: string,
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `ems_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString(), name, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
