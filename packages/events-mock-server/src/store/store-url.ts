/** Where the events are kept: an SQLite file (or memory) in this process, or a PostgreSQL database. */
export type StoreLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** What a store URL may be, for messages of the config, the flags and DATABASE_URL. */
export const STORE_URL_FORMS = 'sqlite:PATH, :memory: or postgres://[user[:password]@]host[:port]/database';

/**
 * Reads a store URL (C47): `sqlite:PATH`, `sqlite::memory:` or `:memory:`, `postgres://` or
 * `postgresql://`. Anything else is an error naming the accepted forms; the value itself is not repeated
 * (a database URL may carry a password).
 */
export function parseStoreUrl(value: string): StoreLocation | { error: string } {
  const v = value.trim();
  if (v === ':memory:') return { kind: 'sqlite', path: ':memory:' };
  if (v.startsWith('sqlite:')) {
    const path = v.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    return path ? { kind: 'sqlite', path } : { error: `sqlite: needs a file path; use ${STORE_URL_FORMS}` };
  }
  if (/^postgres(ql)?:\/\//i.test(v)) {
    try {
      const u = new URL(v);
      if (!u.hostname && !u.searchParams.get('host'))
        return { error: `a postgres URL needs a host; use ${STORE_URL_FORMS}` };
      return { kind: 'postgres', url: v };
    } catch {
      return { error: `is not a valid postgres URL; use ${STORE_URL_FORMS}` };
    }
  }
  return { error: `must be ${STORE_URL_FORMS}` };
}
