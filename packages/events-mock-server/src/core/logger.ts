import { LIMITS } from '@org/events-types';
import pino, { type DestinationStream, type Logger } from 'pino';

const LOG_BUFFER_BYTES = LIMITS.log_buffer_bytes.value;
const LOG_FLUSH_MS = LIMITS.log_flush_interval_seconds.value * 1000;

/**
 * Structured JSON logs (issue point 1). Handlers never log headers or bodies; the redaction is a second
 * line of defence so a token can never reach a log line even if a request object is logged by mistake (C8).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'events-mock-server' },
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        '*.headers.authorization',
        'authorization',
        'token',
      ],
      censor: '[redacted]',
    },
  };
  if (destination) return pino(options, destination);
  // Standard output in writes of 4 KiB or more, at the latest a second after a line was logged: a busy
  // server makes one write per few dozen lines instead of one per request (issue 25, C77). pino writes what
  // is left when the process exits; a SIGKILL loses at most the last second of lines.
  const logger = pino(options, pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES }));
  setInterval(() => logger.flush(), LOG_FLUSH_MS).unref();
  return logger;
}
