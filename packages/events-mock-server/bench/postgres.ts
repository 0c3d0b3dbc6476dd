// A PostgreSQL database of its own for each bench row, dropped after.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
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

/** CPU time (user + system, µs) of one process, from /proc/<pid>/stat; 0 once it has exited. */
function procCpuMicros(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
/** USER_HZ: 100 on every Linux the bench runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS = 100;

/**
 * Starts measuring the CPU of the PostgreSQL backends connected to `database` (the bench server's pool);
 * the function returned answers the µs they used since. Background processes (WAL writer, checkpointer) are
 * shared with other databases and not counted; a backend that exits during the run loses its share (the
 * pool keeps its connections while busy). Needs the server on this machine (/proc); null otherwise.
 */
export async function backendCpu(
  adminUrl: string,
  database: string,
): Promise<(() => Promise<number>) | null> {
  const pids = async () => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      const r = await c.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'",
        [database],
      );
      return r.rows.map((x) => x.pid);
    } finally {
      await c.end();
    }
  };
  const first = await pids();
  if (first.length === 0 || !existsSync(`/proc/${first[0]}/stat`)) return null;
  const before = new Map(first.map((p) => [p, procCpuMicros(p)]));
  return async () => {
    let total = 0;
    for (const p of await pids()) total += procCpuMicros(p) - (before.get(p) ?? 0);
    return total;
  };
}
