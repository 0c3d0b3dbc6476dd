import type { FastifyInstance, FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import { JSON_CONTENT_TYPE } from '../generated/routes.gen.js';

/**
 * Every body is read as a raw Buffer, whatever its content type (C2 row order): fastify's own JSON parser
 * would answer 415 for a wrong content type before the size check and parse JSON before authentication.
 * Here the size limit (413) is enforced while reading, the content type (415) is checked by the handler
 * after that, and JSON is parsed only once authentication and rate limits have passed.
 */
export function registerRawBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
}

/** `application/json`, with or without parameters such as charset (C1). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semi = header.indexOf(';');
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase() === JSON_CONTENT_TYPE;
}

/** Row 415 of C2. */
export function requireJson(req: FastifyRequest): void {
  const ct = req.headers['content-type'];
  if (!isJsonContentType(ct))
    throw requestError('content_type', 'headers.content-type', { received: ct ? received(ct) : 'nothing' });
}

/** Parses the raw body as JSON; malformed JSON is row 400 of C2, with the parser's reason. */
export function parseJsonBody(req: FastifyRequest): unknown {
  const raw = req.body;
  const text = Buffer.isBuffer(raw) ? raw.toString('utf8') : '';
  try {
    return JSON.parse(text);
  } catch (e) {
    throw requestError('json_malformed', 'body', {
      reason: text === '' ? 'the body is empty' : (e as Error).message,
    });
  }
}
