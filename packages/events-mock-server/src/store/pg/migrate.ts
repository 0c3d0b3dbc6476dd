import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { MIGRATIONS, type Migration } from './migrations.js';

/** Key of the session-level advisory lock that serializes migration runs of every instance (C45). */
const MIGRATION_LOCK = 7_254_300_045;

function checksum(m: Migration): string {
  return createHash('sha256').update(m.sql).digest('hex');
}

/**
 * Applies the migrations not yet applied, in order, each in its own transaction (C45). Instances starting
 * at the same time take turns on an advisory lock, so the second finds the first's work done. Refuses a
 * database that has a migration this server does not know (a newer server ran) or whose recorded checksum
 * differs from this server's text (someone edited an applied migration).
 */
export async function migrate(pool: Pool, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number; checksum: string }>(
        'SELECT version, checksum FROM schema_migrations ORDER BY version',
      );
      const known = new Map(migrations.map((m) => [m.version, m]));
      for (const r of rows) {
        const m = known.get(r.version);
        if (!m)
          throw new Error(
            `the database has schema migration ${r.version}, which this server does not know (a newer server migrated it)`,
          );
        if (checksum(m) !== r.checksum)
          throw new Error(
            `schema migration ${r.version} (${m.name}) differs from the one applied to this database`,
          );
      }
      const applied = new Set(rows.map((r) => r.version));
      let count = 0;
      for (const m of migrations) {
        if (applied.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
            m.version,
            m.name,
            checksum(m),
          ]);
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => {});
          throw e;
        }
        count++;
      }
      return count;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    }
  } finally {
    client.release();
  }
}
