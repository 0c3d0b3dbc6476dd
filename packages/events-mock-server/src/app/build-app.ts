import { createServer } from 'node:http';
import fastifyCookie from '@fastify/cookie';
import { LIMITS } from '@org/events-types';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import { RequestError, requestError } from '../core/request-error.js';
import { HEADERS, type OperationId, PATH_PARAM_MAX_LENGTH, ROUTES } from '../generated/routes.gen.js';
import { hasBody } from '../http/body.js';
import { BodyBudget, registerBodyReader } from '../http/body-reader.js';
import { registerConnectionGuard } from '../http/connection-guard.js';
import type { ServerContext } from '../http/context.js';
import { halfCloseAfterAnswer } from '../http/drain.js';
import {
  clientErrorHandler,
  frameworkErrors,
  hostMissing,
  onConnect,
  parserFailedDuring,
} from '../http/framework-errors.js';
import { gated, type Handler, type Handlers, openGate, passHeaderRows } from '../http/gate.js';
import { peekRateLimitHeaders } from '../http/rate-limit.js';
import { clientRequestId, newRequestId } from '../http/request-id.js';
import { eventsLogEntry } from '../http/request-log-capture.js';
import { DEFAULT_TRANSPORT, type TransportOptions } from '../http/transport.js';
import { adminHandlers } from '../routes/admin.js';
import { adminRequestHandlers } from '../routes/admin-requests.js';
import { adminSessionHandlers } from '../routes/admin-session.js';
import { advertiserDefinedEventHandlers } from '../routes/advertiser-defined-events.js';
import { conversionDeletionRequestHandlers } from '../routes/conversion-deletion-requests.js';
import { customEventTypeHandlers } from '../routes/custom-event-types.js';
import { deliveryHandlers } from '../routes/delivery.js';
import { type DocsSource, registerDocs } from '../routes/docs.js';
import { createEventsHandler } from '../routes/events.js';
import { exportHandlers } from '../routes/exports.js';
import { faultHandlers } from '../routes/faults.js';
import { healthHandlers } from '../routes/health.js';
import { type InspectorSource, registerInspector } from '../routes/inspector.js';
import { registerRoot } from '../routes/root.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    operationId?: OperationId;
  }
}

const OVERSIZED_BODY_DRAIN_MS = LIMITS.oversized_body_drain_seconds.value * 1000;

/** fastify's default keep-alive (Node's 5 s races clients that reuse a socket a little later). */
const KEEP_ALIVE_MS = 72_000;

export interface BuildAppOptions {
  logger: Logger;
  docs?: DocsSource | false;
  /** The inspector page at /inspector/ (C68); by default from @org/events-inspector; false for none. */
  inspector?: InspectorSource | false;
  /** Timeouts and caps of C41/C43; each defaults to its spec limit. */
  transport?: Partial<TransportOptions>;
  /**
   * Peers (addresses or CIDR ranges) whose X-Forwarded-Proto, -For and -Host are believed (C71): the
   * session cookie's Secure flag, the login throttle's client address, the served origin. None by default.
   */
  trustedProxies?: readonly string[];
}

export async function buildApp(ctx: ServerContext, options: BuildAppOptions): Promise<FastifyInstance> {
  const transport = { ...DEFAULT_TRANSPORT, ...options.transport };
  const app = Fastify({
    // Our own node:http server, for the options fastify does not pass on (C41, C42): the header timeout is
    // checked every second rather than every 30 s, and the body timeout is the body reader's (C41).
    serverFactory: (handler) =>
      createServer(
        {
          headersTimeout: transport.headersTimeoutSeconds * 1000,
          requestTimeout: 0,
          connectionsCheckingInterval: 1000,
          maxHeaderSize: LIMITS.headers_max_bytes.value,
          keepAliveTimeout: KEEP_ALIVE_MS,
          // A request without Host is answered by requireHost in the service's format (C73), not by Node.
          requireHostHeader: false,
        },
        handler,
      ),
    clientErrorHandler: clientErrorHandler(transport.headersTimeoutSeconds),
    frameworkErrors,
    loggerInstance: options.logger,
    // C1/C2: the body limit is a spec limit; fastify enforces it while reading (413 before anything else).
    bodyLimit: LIMITS.body_max_bytes.value,
    // One log line per request is written by the onResponse hook below, without headers.
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'reqId' }),
    requestIdHeader: false,
    // C118: the service's own id; the client's x-request-id is echoed and logged beside it.
    genReqId: newRequestId,
    routerOptions: { maxParamLength: PATH_PARAM_MAX_LENGTH },
    // Shutdown answers (C43) are the connection guard's, in the service's format with Retry-After.
    return503OnClosing: false,
    // Idle kept-alive sockets are closed by startServer's close() after the grace of C43, not at once.
    forceCloseConnections: false,
    // C71: X-Forwarded-* only from the operator's proxies; from anyone else they are ignored.
    ...(options.trustedProxies?.length ? { trustProxy: [...options.trustedProxies] } : {}),
  }) as unknown as FastifyInstance;

  app.server.on('connect', onConnect);
  // C101: the request's one record of its gate; the only decoration.
  app.decorateRequest('gate', null);
  // parseCookie and serializeCookie for the admin session cookie of C64 (routes/admin-session.ts writes its
  // Set-Cookie itself); the Cookie header is parsed only where a session is taken.
  await app.register(fastifyCookie, { hook: false });
  const budget = new BodyBudget(transport.maxBodyBytesInFlight);
  registerBodyReader(app, budget, transport);
  const guard = registerConnectionGuard(app, ctx, transport);

  // One hook per request and stage, in the order of C2's first rows (issue 25: each hook is a step of
  // fastify's hook runner on every request).
  app.addHook('onRequest', (req, reply, done) => {
    // C89, C118: the client's id echoed (or the service's), and the service's under Pinterest's name.
    reply.header(HEADERS.RequestId, clientRequestId(req) ?? req.id);
    reply.header(HEADERS.PinterestRid, req.id);
    // C41/C43: shutdown and the connection cap first, then a request without Host (C73).
    const refused = guard.refusal(req) ?? hostMissing(req);
    if (refused) return done(refused);
    budget.track(req, reply);
    const op = req.routeOptions.config.operationId;
    // C101: the caller is resolved before the body is read, so even a 413 can carry its rate-limit headers;
    // a cookie session's failed CSRF check (C71) is refused before anything else of the request is read.
    done(op ? openGate(ctx, req, op) : undefined);
  });

  // C40, C101: every row of C2 that needs only the headers is checked before a byte of the body is read.
  app.addHook('preParsing', async (req, reply, payload) => {
    const g = req.gate;
    if (g !== null) {
      const waiting = passHeaderRows(ctx, req, reply, g);
      if (waiting !== undefined) await waiting;
    }
    return payload;
  });

  // During shutdown, answers close their connection: a kept-alive socket whose batch was in flight would
  // otherwise hold fastify.close() open until the keep-alive timeout.
  app.addHook('onSend', (req, reply, payload, done) => {
    // A request during which the parser failed (C73): what follows on the socket is no request.
    if (ctx.closing || parserFailedDuring(req.raw)) reply.header('connection', 'close');
    // C122: a 413 while the body is still coming is read by clients that only read once they have sent.
    else if (reply.statusCode === 413 && !req.raw.complete && req.raw.socket)
      halfCloseAfterAnswer(req.raw.socket, OVERSIZED_BODY_DRAIN_MS);
    // The error body of a refused events request, for its request log entry (C60).
    const g = req.gate;
    if (reply.statusCode !== 200 && g !== null && g.op === 'events/create')
      g.error = typeof payload === 'string' ? payload : null;
    done(null, payload);
  });

  app.addHook('onResponse', (req, reply, done) => {
    guard.answered(req);
    const op = req.routeOptions.config.operationId ?? 'unknown';
    const elapsed = reply.elapsedTime;
    ctx.metrics.requests.inc({ operation: op, status: reply.statusCode });
    ctx.metrics.duration.observe({ operation: op }, elapsed / 1000);
    // C60: logged after the answer went out, so logging can neither delay nor change it.
    const g = req.gate;
    if (g !== null && g.op === 'events/create' && ctx.requestLog.enabled)
      try {
        ctx.requestLog.record(eventsLogEntry(ctx, req, reply, g));
      } catch (err) {
        ctx.metrics.requestLogErrors.inc();
        req.log.warn({ err }, 'request log entry failed');
      }
    // One line per request: no headers, no body, so no token and no hashed identifier (C8).
    req.log.info(
      { op, method: req.method, status: reply.statusCode, ms: Math.round(elapsed * 10) / 10 },
      'request',
    );
    done();
  });

  app.setErrorHandler(async (err: Error & { code?: string; statusCode?: number }, req, reply) => {
    let re: RequestError;
    if (err instanceof RequestError) re = err;
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      re = requestError('body_too_large', 'body', { max: LIMITS.body_max_bytes.value });
    else if (err.code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH')
      re = requestError('content_length_mismatch', 'headers.content-length', {});
    else if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500)
      re = requestError('request_rejected', 'request', { reason: err.message });
    else {
      req.log.error({ err }, 'unexpected error');
      // No details: nothing of a defect (a stack, a driver's text) is answered (C109).
      re = new RequestError('internal_error', []);
      return reply.code(re.status).send(re.body);
    }
    if (re.status === 429)
      ctx.metrics.rateLimited.inc({ limit: re.body.details?.[0]?.path.replace('ratelimit.', '') ?? '' });
    const fault = (re as { fault?: string }).fault;
    // An injected answer (C65) is no failure of a dependency: logged as what it is.
    if (fault !== undefined) req.log.info({ fault, status: re.status }, 'injected fault');
    else if (re.status >= 500)
      req.log.warn({ err: (re as { cause?: unknown }).cause ?? re }, 'dependency unavailable');
    const g = req.gate;
    const category = g !== null ? ROUTES[g.op].rateLimitCategory : null;
    if (g !== null && category) await peekRateLimitHeaders(ctx.limiter, req, reply, category, g.test);
    // A body refused before (or while) it was read is never read further: the connection closes (C40).
    if (hasBody(req) && !req.raw.readableEnded) reply.header('connection', 'close');
    return reply.headers(re.headers).code(re.status).send(re.body);
  });

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const re = requestError('endpoint_unknown', 'url', { method: req.method, path: path.slice(0, 200) });
    reply.code(re.status).send(re.body);
  });

  const handlers: Handlers = {
    'events/create': createEventsHandler(ctx),
    ...customEventTypeHandlers(ctx),
    ...advertiserDefinedEventHandlers(ctx),
    ...conversionDeletionRequestHandlers(ctx),
    ...healthHandlers(ctx),
    ...adminHandlers(ctx),
    ...faultHandlers(ctx),
    ...deliveryHandlers(ctx),
    ...adminRequestHandlers(ctx),
    ...adminSessionHandlers(ctx),
    ...exportHandlers(ctx),
  };
  for (const id of Object.keys(ROUTES) as OperationId[]) {
    const r = ROUTES[id];
    // C101: the handler receives its request's checked record; a body with generated checks is checked first.
    const handler = gated(id, handlers[id] as unknown as Handler<OperationId>);
    app.route({ method: r.method, url: r.url, config: { operationId: id }, handler });
  }
  if (options.docs !== false) await registerDocs(app, options.docs);
  if (options.inspector !== false) await registerInspector(app, options.inspector);
  registerRoot(app, { docs: options.docs !== false, inspector: options.inspector !== false });
  return app;
}
