/** An error as it crosses back from a thread: a structured clone keeps an Error's message, not its fields. */
export interface RelayedError {
  name: string;
  /** A string `code` of the error (SQLite's `SQLITE_BUSY`, Node's `ERR_…`), which 503 details name. */
  code?: string;
  message: string;
  stack?: string;
}

export function relayError(e: unknown): RelayedError {
  const err = (typeof e === 'object' && e !== null ? e : {}) as {
    name?: string;
    code?: unknown;
    message?: string;
  };
  return {
    name: err.name ?? 'Error',
    code: typeof err.code === 'string' ? err.code : undefined,
    message: err.message ?? String(e),
    stack: e instanceof Error ? e.stack : undefined,
  };
}

/** An error thrown on a thread, as its caller sees it: its name and code kept. */
export class ThreadError extends Error {
  readonly code: string | undefined;
  constructor(e: RelayedError) {
    super(e.message);
    this.name = e.name;
    this.code = e.code;
  }
}
