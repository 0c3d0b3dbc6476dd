import { LIMITS } from '@org/events-types';
import type { FastifyRequest } from 'fastify';
import { received, requestError } from '../core/request-error.js';
import { JSON_CONTENT_TYPE } from '../generated/routes.gen.js';

const BODY_MAX = LIMITS.body_max_bytes.value;

/** Whether the request comes with a body (a declared length above 0, or chunked). */
export function hasBody(req: FastifyRequest): boolean {
  const cl = req.headers['content-length'];
  return (cl !== undefined && cl !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** Row 413 of C2 on the declared Content-Length, before reading (a chunked body is measured as it comes). */
export function checkDeclaredLength(req: FastifyRequest): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > BODY_MAX)
    throw requestError('body_too_large', 'body', { max: BODY_MAX }, { connection: 'close' });
}

/** `application/json`, with or without parameters such as charset (C1). */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semi = header.indexOf(';');
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase() === JSON_CONTENT_TYPE;
}

/** The charset parameter of a content type, lower-cased and unquoted; undefined when absent. */
export function charsetOf(header: string): string | undefined {
  for (const part of header.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    return part
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
  }
  return undefined;
}

/** Row 415 of C2: application/json, in UTF-8 (the only charset of JSON, RFC 8259; C40). */
export function requireJson(req: FastifyRequest): void {
  const ct = req.headers['content-type'];
  if (!isJsonContentType(ct))
    throw requestError('content_type', 'headers.content-type', { received: ct ? received(ct) : 'nothing' });
  const charset = charsetOf(ct as string);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
    throw requestError('charset_unsupported', 'headers.content-type', { received: received(charset) });
}

/** The content codings a body may come in (C40): decoded while reading, capped at the body limit. */
export type BodyEncoding = 'identity' | 'gzip' | 'deflate';

/** Row 415 of C2 for Content-Encoding: one coding of gzip, deflate or identity, else refused. */
export function bodyEncoding(req: FastifyRequest): BodyEncoding {
  const h = req.headers['content-encoding'];
  const v = (h ?? 'identity').trim().toLowerCase();
  if (v === '' || v === 'identity') return 'identity';
  if (v === 'gzip' || v === 'x-gzip') return 'gzip';
  if (v === 'deflate') return 'deflate';
  throw requestError('encoding_unsupported', 'headers.content-encoding', { received: received(h ?? '') });
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
