import type { Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import { LIMITS } from '@org/events-types';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type RequestError, requestError } from '../core/request-error.js';
import { HEADERS } from '../generated/routes.gen.js';
import { bodyEncoding } from './body.js';
import { shuttingDown } from './connection-guard.js';
import { malformedOf, onMalformed } from './framework-errors.js';
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

  /** Whatever the outcome (answered, aborted, timed out), the bytes go back when the answer is done. */
  track(req: FastifyRequest, reply: FastifyReply): void {
    reply.raw.once('close', () => this.release(req));
  }

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
 * From this size a body is kept in one buffer of its own: the malloc threshold of C59, above which glibc maps
 * blocks on their own too.
 */
const OWN_BUFFER_FROM = LIMITS.malloc_mmap_threshold_bytes.value;
/**
 * A body past OWN_BUFFER_FROM still in fewer chunks than this came fast (Node reads 64 KiB at a time): a
 * 1000-event batch is 13 chunks. A trickling one (thousands of small chunks, N7) moves to its own buffer.
 */
const FEW_CHUNKS = 32;

/** ES2024's resizable ArrayBuffer (Node >= 20), beyond the TypeScript lib this project compiles against. */
interface ResizableArrayBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}
const Resizable = ArrayBuffer as unknown as new (
  byteLength: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;

/**
 * The bytes of one body as they arrive. A small body, or one arriving in a few large chunks, keeps the chunks
 * it was given (one copy at the end). Once it passes `OWN_BUFFER_FROM` in many chunks, its bytes move into a resizable ArrayBuffer that reserves the declared
 * length (or the body limit) and grows in place as bytes come; each later chunk is copied in and let go at
 * once. A refused body gives its pages back to the system when it is dropped (`resize(0)`), without waiting
 * for a garbage collection, and never leaves its chunks as holes in the malloc heap: 200 slow 5 MiB bodies
 * kept RSS 280 MB above its start after they were all answered (issue 19, N7), now it returns.
 */
export class BodyBytes {
  #chunks: Buffer[] = [];
  #ab: ResizableArrayBuffer | null = null;
  #view: Uint8Array | null = null;
  size = 0;

  /** `declared`: the Content-Length of an identity body, when there is one: its exact final size. */
  constructor(private readonly declared: number | undefined) {}

  push(c: Buffer): void {
    const need = this.size + c.length;
    if (this.#ab === null) {
      // A body that arrives in a few large chunks (a client sending at full speed) keeps them: they are
      // let go together a moment later, and one concat costs a tenth of staging pages that fault in.
      if (need < OWN_BUFFER_FROM || this.#chunks.length < FEW_CHUNKS) {
        this.#chunks.push(c);
        this.size = need;
        return;
      }
      const max = this.declared !== undefined && this.declared >= need ? this.declared : BODY_MAX;
      this.#ab = new Resizable(0, { maxByteLength: Math.max(max, need) });
      // Length-tracking: follows the buffer as it grows.
      this.#view = new Uint8Array(this.#ab);
      this.#grow(need);
      let at = 0;
      for (const k of this.#chunks) {
        this.#view.set(k, at);
        at += k.length;
      }
      this.#chunks = [];
    } else if (need > this.#ab.byteLength) this.#grow(need);
    (this.#view as Uint8Array).set(c, this.size);
    this.size = need;
  }

  /**
   * Grows in place (the pages are reserved already) to the next multiple of OWN_BUFFER_FROM, not by doubling
   * (C116): a shrink zero-fills the length it gives up before decommitting it (V8 11, Node 20), so `drop`
   * of a buffer grown to twice its bytes first faulted in all its untouched pages: 3 ms a body instead of
   * 0.7, and 200 slow bodies dropped at their timeout held the event loop 650 ms instead of 350.
   */
  #grow(need: number): void {
    const ab = this.#ab as ResizableArrayBuffer;
    ab.resize(Math.min(ab.maxByteLength, Math.ceil(need / OWN_BUFFER_FROM) * OWN_BUFFER_FROM));
  }

  /** The whole body, as a Buffer of its own; the staging pages go back at once. */
  bytes(): Buffer {
    if (this.#view === null) return Buffer.concat(this.#chunks, this.size);
    const out = Buffer.allocUnsafeSlow(this.size);
    out.set(this.#view.subarray(0, this.size));
    this.drop();
    return out;
  }

  /** Lets go of every byte; the pages of a large body return to the system now, not at the next GC. */
  drop(): void {
    this.#chunks = [];
    this.#ab?.resize(0);
    this.#ab = null;
    this.#view = null;
  }
}

/**
 * Every body is read by this reader as a Buffer, whatever its content type, and only once the checks that
 * need the headers have passed (C40): the size limit (413) is enforced on the decoded bytes, gzip/deflate
 * are decoded by streaming node:zlib (a bomb stops at the limit), each chunk is reserved against the global
 * budget (503) and the whole body must arrive within the body timeout (408, C41). A parse error of the body
 * (bad chunking, a body cut short by a half-close) stops it at once with its 400 (C73), and a body still
 * being read when the server closes is answered 503 `shutting_down` (C43, C73). JSON is parsed later, by the
 * handler.
 */
export function registerBodyReader(app: FastifyInstance, budget: BodyBudget, t: TransportOptions): void {
  app.decorateRequest('bodyHeld', 0);
  app.decorateRequest('bodyReleased', false);
  const reading = new BodiesInFlight(t.bodyTimeoutSeconds);
  // C43, C73: at the end of the shutdown grace (fastify.close), a body still coming is not waited for.
  app.addHook('preClose', (done) => {
    reading.close();
    done();
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => {
    if (reading.closed) return done(shuttingDown(), undefined);
    readBody(req, payload, budget, reading).then(
      (body) => done(null, body),
      (e: Error) => done(e, undefined),
    );
  });
}

/**
 * The bodies being read and their deadlines (C41). One sweep a second finds those past their deadline, as
 * Node checks the header timeout, instead of a timer armed and cleared per request (issue 25: two timer-list
 * operations were a fifth of a small request's own work). A body is stopped between its deadline and one
 * sweep later.
 */
class BodiesInFlight {
  closed = false;
  readonly #deadlines = new Map<(e: Error) => void, number>();
  readonly #timeout: () => RequestError;
  readonly #ms: number;
  #sweep: NodeJS.Timeout | undefined;

  constructor(seconds: number) {
    this.#ms = seconds * 1000;
    this.#timeout = () => requestError('body_timeout', 'body', { seconds }, CLOSE);
  }

  add(fail: (e: Error) => void): void {
    this.#deadlines.set(fail, Date.now() + this.#ms);
    if (this.#sweep) return;
    this.#sweep = setInterval(() => {
      const now = Date.now();
      for (const [stop, deadline] of this.#deadlines) if (deadline <= now) stop(this.#timeout());
      if (this.#deadlines.size === 0) {
        clearInterval(this.#sweep);
        this.#sweep = undefined;
      }
    }, SWEEP_MS);
    this.#sweep.unref();
  }

  delete(fail: (e: Error) => void): void {
    this.#deadlines.delete(fail);
  }

  /** Shutdown: every body still coming is answered 503 now. */
  close(): void {
    this.closed = true;
    for (const stop of [...this.#deadlines.keys()]) stop(shuttingDown());
    clearInterval(this.#sweep);
    this.#sweep = undefined;
  }
}

/** How often the body deadlines are checked: Node's own interval for the header timeout (C41). */
const SWEEP_MS = 1000;

function readBody(
  req: FastifyRequest,
  payload: Readable,
  budget: BodyBudget,
  reading: BodiesInFlight,
): Promise<Buffer> {
  const encoding = bodyEncoding(req);
  const early = malformedOf(req.raw);
  if (early) return Promise.reject(early);
  const decoder = encoding === 'gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : null;
  const source: Readable = decoder ? payload.pipe(decoder) : payload;
  const declared =
    encoding === 'identity' && req.headers['transfer-encoding'] === undefined
      ? Number(req.headers['content-length'] ?? Number.NaN)
      : Number.NaN;
  return new Promise<Buffer>((resolve, reject) => {
    const body = new BodyBytes(Number.isSafeInteger(declared) ? declared : undefined);
    let settled = false;
    const stop = (e: Error | null) => {
      if (settled) return;
      settled = true;
      reading.delete(fail);
      stopListening();
      source.removeListener('data', onData);
      if (e) {
        body.drop();
        if (decoder) {
          payload.unpipe(decoder);
          decoder.destroy();
        }
        payload.pause();
        budget.release(req);
        reject(e);
      } else resolve(body.bytes());
    };
    const fail = (e: Error) => stop(e);
    reading.add(fail);
    const stopListening = onMalformed(req.raw, fail);
    const onData = (c: Buffer) => {
      if (body.size + c.length > BODY_MAX)
        return stop(requestError('body_too_large', 'body', { max: BODY_MAX }, CLOSE));
      if (!budget.reserve(req, c.length)) return stop(busy(budget.max));
      body.push(c);
    };
    source.on('data', onData);
    source.once('end', () => stop(null));
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
