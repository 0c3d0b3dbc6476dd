import { LIMITS } from '@org/events-types';
import pino, { type DestinationStream, type Logger } from 'pino';

const LOG_BUFFER_BYTES = LIMITS.log_buffer_bytes.value;
const LOG_FLUSH_MS = LIMITS.log_flush_interval_seconds.value * 1000;

const CENSOR = '[redacted]';
const SECRET_KEYS = new Set(['authorization', 'token']);

type Logged = Record<string, unknown>;

function withoutAuthorization(headers: unknown): unknown {
  return headers !== null && typeof headers === 'object' && 'authorization' in headers
    ? { ...headers, authorization: CENSOR }
    : headers;
}

/**
 * The second line of defence of C8: `authorization` and `token`, and the `authorization` of `headers` or of
 * any `x.headers`, never reach a line, whatever object is logged by mistake. A look at the top-level keys;
 * the object is copied only when something is censored (pino's path-based `redact` parsed its paths again on
 * every line: issue 25).
 */
export function censorSecrets(o: Logged): Logged {
  let out = o;
  const set = (k: string, v: unknown) => {
    if (out === o) out = { ...o };
    out[k] = v;
  };
  for (const k in o) {
    const v = o[k];
    if (SECRET_KEYS.has(k)) set(k, CENSOR);
    else if (v === null || typeof v !== 'object') continue;
    else if (k === 'headers') {
      const h = withoutAuthorization(v);
      if (h !== v) set(k, h);
    } else if ('headers' in v) {
      const h = withoutAuthorization((v as { headers: unknown }).headers);
      if (h !== (v as { headers: unknown }).headers) set(k, { ...v, headers: h });
    }
  }
  return out;
}

/**
 * Structured JSON logs (issue point 1). Handlers never log headers or bodies; `censorSecrets` is a second
 * line of defence so a token can never reach a log line even if a request object is logged by mistake (C8).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'events-mock-server' },
    formatters: { log: censorSecrets },
  };
  if (destination) return pino(options, destination);
  // Standard output in writes of 4 KiB or more, at the latest a second after a line was logged: a busy
  // server makes one write per few dozen lines instead of one per request (issue 25, C77). pino writes what
  // is left when the process exits; a SIGKILL loses at most the last second of lines.
  const logger = pino(options, pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES }));
  setInterval(() => logger.flush(), LOG_FLUSH_MS).unref();
  return logger;
}
