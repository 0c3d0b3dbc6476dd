import pg from 'pg';

/** The channel every conversion deletion's transaction notifies at its commit (C132). */
export const DELETIONS_CHANNEL = 'events_deletions';
export const NOTIFY_DELETION = `SELECT pg_notify('${DELETIONS_CHANNEL}', '')`;
const RETRY_MS = 1000;

/**
 * C132 across instances: the conversion deletions any instance on this database has committed, counted as
 * PostgreSQL notifies them (LISTEN on a connection of its own). While that connection is down nothing is heard,
 * so the count moves once it is back: what a deliverer claimed meanwhile is claimed again.
 */
export class DeletionListener {
  readonly #url: string;
  readonly #connectTimeoutMs: number;
  readonly #onError: (e: Error) => void;
  #heard = 0;
  #client: pg.Client | null = null;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(url: string, connectTimeoutMs: number, onError: (e: Error) => void) {
    this.#url = url;
    this.#connectTimeoutMs = connectTimeoutMs;
    this.#onError = onError;
  }

  /** Deletions heard of, and one more for each time the connection came (back). */
  get heard(): number {
    return this.#heard;
  }

  /** Listens; a database that does not answer now is tried again every second, without failing the caller. */
  async start(): Promise<void> {
    await this.#connect().catch((e: Error) => {
      this.#onError(e);
      this.#schedule();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const c = this.#client;
    this.#client = null;
    await c?.end().catch(() => {});
  }

  async #connect(): Promise<void> {
    // A database that does not answer must not hold up the start (routeOutbox awaits the first try).
    const c = new pg.Client({
      connectionString: this.#url,
      application_name: 'events-mock-server',
      connectionTimeoutMillis: this.#connectTimeoutMs,
    });
    c.on('notification', () => {
      this.#heard++;
    });
    // A connection that breaks while listening is opened again; one that fails to open rejects below.
    const lost = (e: Error | null) => {
      if (this.#client !== c) return;
      this.#client = null;
      if (e) this.#onError(e);
      this.#schedule();
    };
    c.on('error', (e) => lost(e));
    c.on('end', () => lost(null));
    try {
      await c.connect();
      await c.query(`LISTEN ${DELETIONS_CHANNEL}`);
    } catch (e) {
      await c.end().catch(() => {});
      throw e;
    }
    if (this.#closed) {
      await c.end().catch(() => {});
      return;
    }
    this.#client = c;
    this.#heard++;
  }

  #schedule(): void {
    if (this.#closed || this.#retry !== undefined) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#connect().catch((e: Error) => {
        this.#onError(e);
        this.#schedule();
      });
    }, RETRY_MS);
    this.#retry.unref();
  }
}
