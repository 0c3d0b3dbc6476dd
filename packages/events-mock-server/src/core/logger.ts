import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * The text fastify logs once listening, given through its `listenTextResolver`. It is logged at debug, not
 * info: the bin's banner says the same to a person, and a JSON line before it read as noise (issue 23).
 */
export const LISTEN_TEXT = 'listening at';

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
    hooks: {
      logMethod(
        this: Logger,
        args: Parameters<Logger['info']>,
        method: (...a: unknown[]) => void,
        level: number,
      ) {
        const [first] = args;
        if (level === 30 && typeof first === 'string' && first.startsWith(LISTEN_TEXT)) {
          this.debug(first);
          return;
        }
        method.apply(this, args);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
