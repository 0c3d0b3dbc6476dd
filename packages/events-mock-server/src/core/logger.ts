import pino, { type DestinationStream, type Logger } from 'pino';

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
  return destination ? pino(options, destination) : pino(options);
}
