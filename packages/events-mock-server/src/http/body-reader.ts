import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { LIMITS } from '@org/events-types';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type RequestError, requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import { bodyEncoding } from './body.js';
import type { TransportOptions } from './transport.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Body bytes this request holds against the budget of C41; released when its answer is done. */
    bodyHeld: number;
    bodyReleased: boolean;
  }
}

/** The body bytes held at once across all requests, against `maxBodyBytesInFlight` (C41). */
export class BodyBudget {
  inFlight = 0;
  constructor(readonly max: number) {}

  reserve(req: FastifyRequest, n: number): boolean {
    if (req.bodyReleased || this.inFlight + n > this.max) return false;
    this.inFlight += n;
    req.bodyHeld += n;
    return true;
  }

  release(req: FastifyRequest): void {
    if (req.bodyReleased) return;
    req.bodyReleased = true;
    this.inFlight -= req.bodyHeld;
    req.bodyHeld = 0;
  }
}

const BODY_MAX = LIMITS.body_max_bytes.value;
/** Refusals in the middle of a body close the connection: the rest of it is never read. */
const CLOSE = { connection: 'close' };

/**
 * Every body is read by this reader as a Buffer, whatever its content type, and only once the checks that
 * need the headers have passed (C40): the size limit (413) is enforced on the decoded bytes, gzip/deflate
 * are decoded by streaming node:zlib (a bomb stops at the limit), each chunk is reserved against the global
 * budget (503) and the whole body must arrive within the body timeout (408, C41). JSON is parsed later, by
 * the handler.
 */
export function registerBodyReader(app: FastifyInstance, budget: BodyBudget, t: TransportOptions): void {
  app.decorateRequest('bodyHeld', 0);
  app.decorateRequest('bodyReleased', false);
  app.addHook('onRequest', (req, reply, done) => {
    // Whatever the outcome (answered, aborted, timed out), the bytes go back to the budget.
    reply.raw.once('close', () => budget.release(req));
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    readBody(req, payload, budget, t).then(
      (body) => done(null, body),
      (e: Error) => done(e, undefined),
    );
  });
}

function readBody(
  req: FastifyRequest,
  payload: Readable,
  budget: BodyBudget,
  t: TransportOptions,
): Promise<Buffer> {
  const encoding = bodyEncoding(req);
  const decoder = encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : null;
  const source: Readable = decoder ? payload.pipe(decoder) : payload;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const stop = (e: Error | null, body?: Buffer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      source.removeListener('data', onData);
      if (e) {
        chunks.length = 0;
        if (decoder) {
          payload.unpipe(decoder);
          decoder.destroy();
        }
        payload.pause();
        budget.release(req);
        reject(e);
      } else resolve(body as Buffer);
    };
    const timer = setTimeout(
      () => stop(requestError('body_timeout', 'body', { seconds: t.bodyTimeoutSeconds }, CLOSE)),
      t.bodyTimeoutSeconds * 1000,
    );
    const onData = (c: Buffer) => {
      size += c.length;
      if (size > BODY_MAX) return stop(requestError('body_too_large', 'body', { max: BODY_MAX }, CLOSE));
      if (!budget.reserve(req, c.length)) return stop(busy(budget.max));
      chunks.push(c);
    };
    source.on('data', onData);
    source.once('end', () => stop(null, Buffer.concat(chunks, size)));
    source.once('error', (e) => stop(decoder ? invalid(encoding, e) : e));
    if (decoder) payload.once('error', (e) => stop(e));
  });
}

function busy(max: number): RequestError {
  const retryAfter = LIMITS.busy_retry_after_seconds.value;
  return requestError(
    'server_busy',
    'body',
    { what: 'the body memory of the server', max: `${max} bytes`, retryAfter },
    { ...CLOSE, [HEADERS.RetryAfter]: String(retryAfter) },
  );
}

/** A body that is not what its Content-Encoding says: 400 naming the coding, zlib's fixed reason. */
function invalid(encoding: string, e: Error & { code?: string }): RequestError {
  const reason = e.code?.startsWith('Z_') ? e.code.slice(2).toLowerCase().replaceAll('_', ' ') : 'unreadable';
  return requestError('encoding_invalid', 'body', { encoding, reason });
}
